import Hummingbird

/// Logs every call at info level: method, path and the status answered (or that the connection was dropped).
/// Headers and bodies are never logged, so neither secrets nor tokens reach the log.
struct CallLogMiddleware: RouterMiddleware {
    typealias Context = PortOneRequestContext

    func handle(
        _ request: Request,
        context: PortOneRequestContext,
        next: (Request, PortOneRequestContext) async throws -> Response
    ) async throws -> Response {
        let call = "\(request.method) \(request.uri.path)"
        do {
            let response = try await next(request, context)
            context.logger.info("\(call) → \(response.status.code)")
            return response
        } catch is ConnectionDropped {
            context.logger.info("\(call) → connection dropped (fault)")
            throw ConnectionDropped()
        } catch {
            context.logger.info("\(call) → error \(error)")
            throw error
        }
    }
}
