import Hummingbird
import NIOCore

/// Thrown after a `drop` fault closed the connection; nothing can be answered any more.
struct ConnectionDropped: Error {}

enum FaultInjection {
    /// Statuses whose reason phrase an `error` fault reports as its message.
    static let knownStatuses: [HTTPResponse.Status] = [
        .badRequest, .unauthorized, .forbidden, .notFound, .conflict, .tooManyRequests,
        .internalServerError, .notImplemented, .badGateway, .serviceUnavailable, .gatewayTimeout,
    ]

    /// Carries out a fault. Returns the response to send instead of the normal one (`error`), nil to go on
    /// normally (no fault, or `slow` after its delay), or throws `ConnectionDropped` after closing the
    /// connection (`drop`): Hummingbird then fails to write its fallback 500 on the closed channel and gives up
    /// on the connection, so the client sees the connection closed with no response at all.
    static func apply(_ kind: PortOneFaultKind?, context: PortOneRequestContext) async throws -> Response? {
        guard let kind else { return nil }
        switch kind {
        case .slow(let delay):
            context.logger.info("fault: slow", metadata: ["delay_ms": "\(delay)"])
            try await Task.sleep(for: .milliseconds(max(0, delay)))
            return nil
        case .error(let code):
            context.logger.info("fault: error", metadata: ["status": "\(code)"])
            let status = Self.knownStatuses.first { $0.code == code } ?? HTTPResponse.Status(code: code)
            let message =
                code == 500 || status.reasonPhrase.isEmpty ? PortOneMessage.internalError : status.reasonPhrase
            return JSONResponse.failure(code: -1, message: message, status: status)
        case .drop(let delay):
            context.logger.info("fault: drop", metadata: ["after_ms": "\(delay)"])
            if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }
            try? await context.channel.close()
            throw ConnectionDropped()
        }
    }
}
