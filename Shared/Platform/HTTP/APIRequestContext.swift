import Foundation
import HTTPTypes
import Hummingbird

/// The authenticated caller, from a verified access token.
package struct AuthenticatedUser: Sendable, Equatable {
    package let userId: String
    /// The refresh-token session the access token was issued for (logout revokes it).
    package let sessionId: String?
    package let expiresAt: Date
}

/// Request context shared by every service: request id and authenticated user travel with the request.
package struct APIRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// Set by `EdgeMiddleware` from `X-Request-ID` (set by the gateway) or generated.
    package var requestId: String = ""
    /// W3C `traceparent` of the incoming request, if it carried a well-formed one.
    package var traceparent: String?
    /// Set by `AuthenticationMiddleware` on authenticated routes.
    package var user: AuthenticatedUser?
    /// Set by `EdgeMiddleware` (`ProductIdCheck`) when a G2 app named itself (decision 0021).
    package var productId: String?

    package init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    /// JSON request bodies are small (a post with every text field at its limit, in Hangul, is ~110 KB);
    /// uploads use their own streaming path.
    package var maxUploadSize: Int { 256 * 1024 }

    package var requestDecoder: JSONDecoder { APIJSON.decoder() }
    package var responseEncoder: JSONEncoder { APIJSON.encoder() }

    /// What events written during this request carry in their Kafka headers.
    package var trace: TraceContext { TraceContext(requestId: requestId, traceparent: traceparent) }

    /// The authenticated user; routes behind `AuthenticationMiddleware` always have one.
    package func requireUser() throws -> AuthenticatedUser {
        guard let user else { throw APIError.unauthorized() }
        return user
    }
}

/// JSON on the public API: explicit key names on each type (the contract mixes snake and camel case),
/// ISO-8601 dates with milliseconds, optionals omitted when nil (synthesized `encodeIfPresent`).
package enum APIJSON {
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom(APIDateFormat.encode)
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(APIDateFormat.decode)
        return decoder
    }
}

/// Request id and W3C trace context, carried from an HTTP request into the Kafka headers of its events.
package struct TraceContext: Sendable, Equatable {
    package var requestId: String?
    package var traceparent: String?

    package init(requestId: String?, traceparent: String? = nil) {
        self.requestId = requestId
        self.traceparent = traceparent
    }
}
