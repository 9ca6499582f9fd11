import Foundation
import HTTPTypes
import Hummingbird

/// Verifies the access token on authenticated routes: the bare JWT in `Authorization` (an optional
/// `Bearer ` prefix is accepted too). Unverifiable → 401, expired → 419 (contract §10.3).
/// `isActive` lets a service reject tokens of users it knows are gone (withdrawn) → 401.
public struct AuthenticationMiddleware: RouterMiddleware {
    public typealias Context = APIRequestContext
    let verifier: AccessTokenVerifier
    let isActive: (@Sendable (AuthenticatedUser) async throws -> Bool)?

    public init(verifier: AccessTokenVerifier, isActive: (@Sendable (AuthenticatedUser) async throws -> Bool)? = nil) {
        self.verifier = verifier
        self.isActive = isActive
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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
                throw APIError.unauthorized("탈퇴했거나 로그아웃된 계정입니다. (account no longer active)")
            }
            var context = context
            context.user = user
            context.logger[metadataKey: "user_id"] = .string(user.userId)
            return try await next(request, context)
        }
    }

    /// The token from `Authorization`, with an optional `Bearer ` prefix removed.
    public static func token(from request: Request) -> String? {
        guard var value = request.headers[.authorization]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.lowercased().hasPrefix("bearer ") { value = String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces) }
        return value.isEmpty ? nil : value
    }
}
