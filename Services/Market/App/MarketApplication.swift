import Foundation
import Hummingbird
import Logging
import SNSPlatform

/// Builds the market & payment verification service (API conventions §2.6, §10.10; decision 0007): payment validation
/// with PortOne, payment history, PortOne's webhook, the background re-verifier, and the product read model.
package func buildApplication(configuration: MarketConfiguration, logger: Logger) async throws
    -> some ApplicationProtocol
{
    try await MarketApplication(configuration: configuration, logger: logger).application
}

/// The assembled service; tests reach its re-verifier to run a round without waiting for the timer.
package struct MarketApplication: Sendable {
    let platform: ServicePlatform
    let deps: MarketDependencies
    let reverifier: PaymentReverifier
    let configuration: MarketConfiguration

    package init(configuration: MarketConfiguration, logger: Logger) async throws {
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
        self.platform = platform
        self.configuration = configuration
        self.deps = MarketDependencies(
            store: store, verification: verification, reverifyDelay: configuration.reverifyInterval)
        self.reverifier = PaymentReverifier(
            verification: verification, store: store, interval: configuration.reverifyInterval,
            maxAge: configuration.claimMaxAge, logger: platform.logger,
            startGate: platform.startGate)
    }

    /// One re-verification round, as the background worker runs it (`asOf`: treat retries scheduled before it as due).
    package func reverifyOnce(asOf: Date = Date()) async throws -> (
        recorded: Int, rejected: Int, postponed: Int, expired: Int, cancels: Int
    ) {
        let report = try await reverifier.runOnce(asOf: asOf)
        return (report.recorded, report.rejected, report.postponed, report.expired, report.cancelsDone)
    }

    package var application: some ApplicationProtocol {
        get throws {
            let store = deps.store
            let logger = platform.logger
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
                SystemCatalog.market.consumers[0], of: SystemCatalog.market,
                handler: ProductsProjection(schema: deps.store.schema))
            return platform.makeApplication(
                router: router,
                consumers: configuration.consumesEvents ? [consumer] : [],
                extraServices: configuration.runsReverifier ? [reverifier] : [])
        }
    }
}
