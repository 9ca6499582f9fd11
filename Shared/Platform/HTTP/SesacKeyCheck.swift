import HTTPTypes
import Hummingbird

/// Requests without the right `SesacKey` header are rejected with 420 before any route runs (`EdgeMiddleware`),
/// image downloads and unknown routes included. Operational endpoints (`/health`, `/ready`, `/metrics`,
/// `/.well-known/jwks.json`) are exempt; the gateway does not expose the first three.
package struct SesacKeyCheck: Sendable {
    let expected: [UInt8]
    let exemptPaths: Set<String>

    package static let operationalPaths: Set<String> = ["/health", "/ready", "/metrics", "/.well-known/jwks.json"]

    package init(apiKey: String, exemptPaths: Set<String> = Self.operationalPaths) {
        self.expected = Array(apiKey.utf8)
        self.exemptPaths = exemptPaths
    }

    /// Throws 420 unless the request carries the key or its path is exempt.
    func check(_ request: Request) throws {
        if exemptPaths.contains(request.uri.path) { return }
        guard let given = request.headers[.sesacKey], Self.constantTimeEquals(Array(given.utf8), expected) else {
            throw APIError.invalidAPIKey()
        }
    }

    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
