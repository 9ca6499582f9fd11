import Dispatch
import HTTPTypes
import Hummingbird
import Logging

/// Everything every request of every service goes through before its route, in one async frame (each middleware is
/// an async call with a copy of the context; eight of them cost a page about a fifth of the service's CPU):
///
/// 1. request id (`X-Request-ID` from the gateway, or a new one) and W3C `traceparent` onto the context and logger;
/// 2. `SesacKey` (420), then `ProductId` (421, G2 apps), then the database watch (503 while the database is down;
///    operational endpoints pass);
/// 3. the route; anything thrown becomes the contract's `{"message": …}` answer (`ErrorResponse`);
/// 4. on the answer: the request id echoed, `Connection: close` while the replica drains (`ShutdownDrain`), the
///    request metrics (`RequestMetrics`), one access-log line (never headers or bodies; operational endpoints at
///    debug only).
package struct EdgeMiddleware: RouterMiddleware {
    package typealias Context = APIRequestContext
    let drain: ShutdownDrain
    let sesacKey: SesacKeyCheck
    let productId: ProductIdCheck
    let databaseWatch: DatabaseWatch?
    let metrics = RequestMetrics()

    package init(
        drain: ShutdownDrain, sesacKey: SesacKeyCheck, productId: ProductIdCheck, databaseWatch: DatabaseWatch?
    ) {
        self.drain = drain
        self.sesacKey = sesacKey
        self.productId = productId
        self.databaseWatch = databaseWatch
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = DispatchTime.now().uptimeNanoseconds
        let active = metrics.activeRequests(request.method)
        active.increment()
        var context = context
        let requestId = RequestID.of(request)
        context.requestId = requestId
        context.logger[metadataKey: "request_id"] = .string(requestId)
        context.traceparent = RequestID.validTraceparent(request.headers[.traceparent])
        var response: Response
        do {
            try sesacKey.check(request)
            context.productId = try productId.productId(of: request)
            try databaseWatch?.check(request)
            response = try await next(request, context)
        } catch {
            response = ErrorResponse.response(for: error, logger: context.logger)
        }
        response.headers[.requestID] = requestId
        if drain.isDraining { response.headers[.connection] = "close" }

        let elapsed = Int64(DispatchTime.now().uptimeNanoseconds - start)
        metrics.record(
            .init(route: context.endpointPath ?? "Unknown", method: request.method, status: response.status.code),
            nanoseconds: elapsed)
        active.decrement()
        let level: Logger.Level = SesacKeyCheck.operationalPaths.contains(request.uri.path) ? .debug : .info
        context.logger.log(
            level: level, "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .stringConvertible((Double(elapsed) / 1000).rounded() / 1000),
            ])
        return response
    }
}
