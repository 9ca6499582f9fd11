import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// `GET /v1/auth/refresh` with `Authorization` = the (expired) access token and `Refresh` = the refresh token.
/// Contract §10.3: 200 `{accessToken}` when the access token is genuine but expired and the refresh token is a
/// live session of the same user; 409 while the access token is still valid; 418 when the refresh token
/// expired; 401 when either token is unverifiable, unknown, revoked or belongs to someone else. Revocation is
/// checked before expiry: a withdrawn or logged-out session's still-valid access token gets 401, not 409.
/// The refresh token is not rotated: G1 clients keep using the one they have.
struct RefreshHandler: Sendable {
    let deps: AuthDependencies

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        try .json(RefreshResponse(accessToken: try await renew(request, context: context)))
    }

    /// The new access token, shared by the G1 (`{accessToken}`) and G0 (`{token}`) encodings.
    func renew(_ request: Request, context: APIRequestContext) async throws -> String {
        guard let accessToken = AuthenticationMiddleware.token(from: request) else {
            throw APIError.unauthorized("액세스 토큰이 없습니다. (missing access token)")
        }
        let user: AuthenticatedUser
        switch await deps.verifier.verify(accessToken) {
        case .invalid:
            throw APIError.unauthorized()
        case .valid(let validUser):
            guard
                try await deps.store.isActive(
                    userId: validUser.userId, sessionId: validUser.sessionId, logger: context.logger)
            else {
                throw APIError.unauthorized("탈퇴했거나 로그아웃된 계정입니다. (account no longer active)")
            }
            throw APIError.conflict("액세스 토큰이 만료되지 않았습니다. (access token has not expired yet)")
        case .expired(let expiredUser):
            user = expiredUser
        }
        guard let refreshToken = request.headers[.refresh]?.trimmingCharacters(in: .whitespaces), !refreshToken.isEmpty,
            refreshToken.utf8.count <= 512
        else {
            throw APIError.unauthorized("리프레시 토큰이 없습니다. (missing Refresh header)")
        }
        guard
            let session = try await deps.store.session(
                tokenHash: RefreshTokens.hash(refreshToken), logger: context.logger),
            session.userId == user.userId, !session.revoked, session.accountActive
        else {
            throw APIError.unauthorized("인증할 수 없는 리프레시 토큰입니다. (refresh token cannot be verified)")
        }
        guard session.expiresAt > Date() else {
            throw APIError.refreshTokenExpired()
        }
        try await deps.store.touchSession(session.sessionId, logger: context.logger)
        return try await SessionIssuer(deps: deps).accessToken(userId: user.userId, sessionId: session.sessionId)
    }
}
