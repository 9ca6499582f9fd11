import HTTPTypes
import Hummingbird
import Logging

/// One log line per API request: method, path, status and duration, with the request id (and user id once
/// authenticated) from the logger's metadata. Never headers or bodies (tokens, passwords). Operational
/// endpoints polled by orchestrators (`/health`, `/ready`, `/metrics`) are logged at debug only.
package struct AccessLogMiddleware: RouterMiddleware {
    package typealias Context = APIRequestContext

    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let level: Logger.Level = SesacKeyMiddleware.operationalPaths.contains(request.uri.path) ? .debug : .info
        context.logger.log(
            level: level, "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .stringConvertible((elapsed.milliseconds * 1000).rounded() / 1000),
            ])
        return response
    }
}
