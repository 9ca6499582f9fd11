import Foundation
import Hummingbird
import Logging
import PostgresNIO
import SNSPlatform

/// Builds the market & payment verification service (API conventions §2.6, §10.10; decision 0007): payment validation
/// with PortOne, payment history, PortOne's webhook, the background re-verifier, and the product read model.
package func buildApplication(configuration: MarketConfiguration, logger: Logger) async throws
    -> some ApplicationProtocol
{
    try await buildApplicationAndParts(configuration: configuration, logger: logger).application
}

/// The application, and the parts tests reach into: the pool (to fill the read model directly) and the re-verifier
/// (to run a round without waiting for its timer).
package func buildApplicationAndParts(configuration: MarketConfiguration, logger: Logger) async throws -> (
    application: some ApplicationProtocol, postgres: DatabasePool, reverifier: PaymentReverifier
) {
    let schema = try SQLIdentifier(configuration.schema)
    let platform = try await ServicePlatform(
        configuration: configuration.platform, schema: schema.name,
        migrations: MarketMigrations.all(schema: schema), logger: logger)
    let store = MarketStore(client: platform.postgres, schema: schema)
    let portOne = PortOneClient(
        settings: .init(
            baseURL: configuration.portOneURL, impKey: configuration.impKey, impSecret: configuration.impSecret,
            timeout: configuration.portOneTimeout, attempts: configuration.portOneAttempts,
            retryBase: configuration.portOneRetryBase))
    let verification = PaymentVerification(
        store: store, portOne: portOne, outbox: platform.outbox, postgres: platform.postgres)
    let deps = MarketDependencies(
        store: store, verification: verification, reverifyDelay: configuration.reverifyInterval)
    let reverifier = PaymentReverifier(
        verification: verification, store: store, interval: configuration.reverifyInterval,
        maxAge: configuration.claimMaxAge, logger: platform.logger, startGate: platform.startGate)

    let router = platform.makeRouter(sesacKeyExemptPaths: [WebhookHandler.path])
    // The webhook comes from PortOne: no SesacKey, no token (it is verified by asking PortOne).
    let webhook = WebhookHandler(notifications: PaymentNotifications(deps: deps))
    router.post("v1/payments/webhook", use: webhook.receive)

    let api = router.group("v1").add(
        middleware: AuthenticationMiddleware(verifier: platform.verifier) { user in
            try await store.isActive(userId: user.userId, logger: logger)
        })
    let validation = ValidationHandler(validation: PaymentValidation(deps: deps))
    let history = PaymentHistoryHandler(deps: deps)
    api.post("payments/validation", use: validation.validate)
    api.get("payments/me", use: history.mine)

    let consumer = try platform.makeConsumer(
        SystemCatalog.market.consumers[0], of: SystemCatalog.market, handler: ProductsProjection(schema: schema))
    let application = platform.makeApplication(
        router: router,
        consumers: configuration.consumesEvents ? [consumer] : [],
        extraServices: configuration.runsReverifier ? [reverifier] : [])
    return (application, platform.postgres, reverifier)
}
