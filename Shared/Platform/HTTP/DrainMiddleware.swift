import Hummingbird

/// Asks the gateway to close each connection after its answer while the replica drains (see `ShutdownDrain`).
package struct DrainMiddleware: RouterMiddleware {
    package typealias Context = APIRequestContext
    let drain: ShutdownDrain

    package init(drain: ShutdownDrain) { self.drain = drain }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        if drain.isDraining { response.headers[.connection] = "close" }
        return response
    }
}
