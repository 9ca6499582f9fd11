import Hummingbird
import SNSPlatform

/// `GET /v1/payments/me` (API conventions §2.6 #28): `{data: [payment]}`, the caller's purchases, newest first,
/// at most `MarketStore.historyLimit`.
struct PaymentHistoryHandler: Sendable {
    let deps: MarketDependencies

    func mine(_ request: Request, context: APIRequestContext) async throws -> Response {
        let me = try context.requireUser()
        let payments = try await deps.store.history(buyerId: me.userId, logger: context.logger)
        return try .json(PaymentListJSON(data: payments.map(PaymentJSON.init)))
    }
}
