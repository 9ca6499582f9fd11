import Foundation
import HTTPTypes
import Hummingbird

/// The authenticated caller, from a verified access token.
public struct AuthenticatedUser: Sendable, Equatable {
    public let userId: String
    /// The refresh-token session the access token was issued for (logout revokes it).
    public let sessionId: String?
    public let expiresAt: Date
}

/// Request context shared by every service: request id and authenticated user travel with the request.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `RequestIDMiddleware` from `X-Request-ID` (set by the gateway) or generated.
    public var requestId: String = ""
    /// W3C `traceparent` of the incoming request, if it carried a well-formed one.
    public var traceparent: String?
    /// Set by `AuthenticationMiddleware` on authenticated routes.
    public var user: AuthenticatedUser?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    /// JSON request bodies are small (a post with every text field at its limit, in Hangul, is ~110 KB);
    /// uploads use their own streaming path.
    public var maxUploadSize: Int { 256 * 1024 }

    public var requestDecoder: JSONDecoder { APIJSON.decoder() }
    public var responseEncoder: JSONEncoder { APIJSON.encoder() }

    /// What events written during this request carry in their Kafka headers.
    public var trace: TraceContext { TraceContext(requestId: requestId, traceparent: traceparent) }

    /// The authenticated user; routes behind `AuthenticationMiddleware` always have one.
    public func requireUser() throws -> AuthenticatedUser {
        guard let user else { throw APIError.unauthorized() }
        return user
    }
}

/// JSON on the public API: explicit key names on each type (the contract mixes snake and camel case),
/// ISO-8601 dates with milliseconds, optionals omitted when nil (synthesized `encodeIfPresent`).
public enum APIJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom(APIDateFormat.encode)
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(APIDateFormat.decode)
        return decoder
    }
}

/// Request id and W3C trace context, carried from an HTTP request into the Kafka headers of its events.
public struct TraceContext: Sendable, Equatable {
    public var requestId: String?
    public var traceparent: String?

    public init(requestId: String?, traceparent: String? = nil) {
        self.requestId = requestId
        self.traceparent = traceparent
    }
}
