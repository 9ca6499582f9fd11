import HTTPTypes
import Hummingbird

/// Rejects requests without the right `SesacKey` header with 420, before anything else runs (API conventions §10.2),
/// image downloads and unknown routes included. Operational endpoints (`/health`, `/ready`, `/metrics`,
/// `/.well-known/jwks.json`) are exempt; the gateway does not expose the first three.
package struct SesacKeyMiddleware: RouterMiddleware {
    package typealias Context = APIRequestContext
    let expected: [UInt8]
    let exemptPaths: Set<String>

    package static let operationalPaths: Set<String> = ["/health", "/ready", "/metrics", "/.well-known/jwks.json"]

    package init(apiKey: String, exemptPaths: Set<String> = Self.operationalPaths) {
        self.expected = Array(apiKey.utf8)
        self.exemptPaths = exemptPaths
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if exemptPaths.contains(request.uri.path) {
            return try await next(request, context)
        }
        guard let given = request.headers[.sesacKey], Self.constantTimeEquals(Array(given.utf8), expected) else {
            throw APIError.invalidAPIKey()
        }
        return try await next(request, context)
    }

    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
