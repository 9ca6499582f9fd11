import Logging

/// What a use case needs to know of the request that asks for it, without HTTP: who acts, the trace its events
/// carry, and the request's logger. Handlers make one (`context.caller()`), decode the body, call a use case in
/// their service's `Domain/` and encode its answer in the request's API generation.
package struct Caller: Sendable {
    package let userId: String
    package let trace: TraceContext
    package let logger: Logger
    /// The G2 app the request came from (`ProductId`), nil for G0 and G1 (decision 0021).
    package let productId: String?

    package init(userId: String, trace: TraceContext, logger: Logger, productId: String? = nil) {
        self.userId = userId
        self.trace = trace
        self.logger = logger
        self.productId = productId
    }
}

extension APIRequestContext {
    /// The authenticated caller (401 when the route is not behind `AuthenticationMiddleware`).
    package func caller() throws -> Caller {
        Caller(userId: try requireUser().userId, trace: trace, logger: logger, productId: productId)
    }
}
