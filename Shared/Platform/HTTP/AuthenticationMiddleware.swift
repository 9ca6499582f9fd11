import Foundation
import HTTPTypes
import Hummingbird

/// Verifies the access token on authenticated routes: the bare JWT in `Authorization` (an optional
/// `Bearer ` prefix is accepted too). Unverifiable → 401, expired → 419 (API conventions §10.3).
/// `isActive` lets a service reject tokens of users it knows are gone (withdrawn) → 401.
package struct AuthenticationMiddleware: RouterMiddleware {
    package typealias Context = APIRequestContext
    let verifier: AccessTokenVerifier
    let isActive: (@Sendable (AuthenticatedUser) async throws -> Bool)?

    package init(verifier: AccessTokenVerifier, isActive: (@Sendable (AuthenticatedUser) async throws -> Bool)? = nil) {
        self.verifier = verifier
        self.isActive = isActive
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let token = Self.token(from: request) else {
            throw APIError.unauthorized("액세스 토큰이 없습니다. (missing access token)")
        }
        switch await verifier.verify(token) {
        case .invalid:
            throw APIError.unauthorized()
        case .expired:
            throw APIError.accessTokenExpired()
        case .valid(let user):
            if let isActive, try await !isActive(user) {
                throw Self.accountGone
            }
            var context = context
            context.user = user
            context.logger[metadataKey: "user_id"] = .string(user.userId)
            return try await next(request, context)
        }
    }

    /// The answer to a token of an account that is no longer active (also given by reads that check the account
    /// in their own statement).
    package static let accountGone = APIError.unauthorized("탈퇴했거나 로그아웃된 계정입니다. (account no longer active)")

    /// The token from `Authorization`, with an optional `Bearer ` prefix removed. Scans the UTF-8 bytes: every
    /// request passes here, and Foundation's trimming bridges through UTF-16 (it showed in the page profile).
    package static func token(from request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        var bytes = Substring(header).utf8[...]
        func trim(_ bytes: inout Substring.UTF8View.SubSequence) {
            while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
            while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        }
        trim(&bytes)
        let bearer = Array("bearer ".utf8)
        if bytes.count >= bearer.count, zip(bytes.prefix(bearer.count), bearer).allSatisfy({ $0 | 0x20 == $1 }) {
            bytes = bytes.dropFirst(bearer.count)
            trim(&bytes)
        }
        return bytes.isEmpty ? nil : String(Substring(bytes))
    }
}
