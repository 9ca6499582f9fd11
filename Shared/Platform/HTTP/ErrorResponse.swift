import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import PostgresNIO

/// Turns every error into the contract's shape: `{"message": "..."}` with the contract's status code (used by
/// `EdgeMiddleware` for whatever a route or check threw).
/// Unknown routes (and known paths with an unsupported method) become 444; an unreachable or stalled database
/// becomes 503 (the app may retry); other unexpected errors become a 500
/// whose details go to the log (with the request id), never to the client.
package enum ErrorResponse {
    package static func response(for error: any Error, logger: Logger) -> Response {
        switch error {
        case let error as APIError:
            if error.status.code >= 500 {
                logger.error(
                    "request failed", metadata: ["status": "\(error.status.code)", "error": "\(error.message)"])
            }
            return APIError.response(status: error.status, message: error.message)
        case let error as HTTPError:
            switch error.status {
            case .notFound, .methodNotAllowed:
                let unknown = APIError.unknownRoute()
                return APIError.response(status: unknown.status, message: unknown.message)
            case .contentTooLarge:
                return APIError.response(status: .badRequest, message: "요청 본문이 너무 큽니다. (request body too large)")
            default:
                if error.status.code >= 500 {
                    logger.error("request failed", metadata: ["error": "\(error)"])
                }
                return APIError.response(status: error.status, message: error.body ?? error.status.reasonPhrase)
            }
        case let error as PSQLError where isDataException(error):
            // Class 22 (data exception): the input cannot be stored as given, e.g. a U+0000 in a JSON string or
            // a query value (PostgreSQL text cannot hold NUL) — the client's fault, never a 500.
            logger.notice(
                "rejected by the database as invalid data",
                metadata: ["sqlstate": "\(error.serverInfo?[.sqlState] ?? "")"])
            let invalid = APIError.badRequest("잘못된 값입니다. (a value cannot be stored, e.g. it contains a NUL character)")
            return APIError.response(status: invalid.status, message: invalid.message)
        case _ where clientWentAway(error):
            // The client closed the connection before its request was complete (phones abort uploads all the
            // time): its doing, not ours. Counted apart, answered 499 (nginx's "client closed request"; nobody
            // reads it), never a 5xx.
            logger.warning("client went away mid-request", metadata: ["error": "\(error)"])
            Self.clientAborts.increment()
            return APIError.response(
                status: .init(code: 499), message: "요청이 중단되었습니다. (client closed the request)")
        case _ where InfrastructureFailure.isTransient(error):
            logger.error("database unavailable", metadata: ["error": "\(String(reflecting: error))"])
            let failure = APIError.unavailable()
            return APIError.response(status: failure.status, message: failure.message)
        default:
            logger.error("unexpected error", metadata: ["error": "\(String(reflecting: error))"])
            let failure = APIError.internalError()
            return APIError.response(status: failure.status, message: failure.message)
        }
    }

    /// `sns_client_aborted_requests_total`: requests whose client went away before sending all of them.
    static let clientAborts = Counter(label: "sns_client_aborted_requests_total")

    /// The request body ended early or the connection is gone: errors of reading the request, not of serving it.
    static func clientWentAway(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPParserError: return error == .invalidEOFState
        case let error as ChannelError: return error == .ioOnClosedChannel || error == .eof
        case let error as IOError: return [ECONNRESET, EPIPE].contains(error.errnoCode)
        default: return false
        }
    }

    static func isDataException(_ error: PSQLError) -> Bool {
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("22")
    }
}
