import Foundation
import Logging
import SNSPlatform

/// Refresh-token sessions and the access tokens bound to them.
struct Sessions: Sendable {
    let deps: AuthDependencies

    /// A new session. `credentialHash`: the federated credential that opened it (see `VerifiedIdentity`), if any.
    func start(userId: String, credentialHash: [UInt8]? = nil, logger: Logger) async throws -> (
        accessToken: String, refreshToken: String
    ) {
        let sessionId = ObjectID.generate()
        let refreshToken = RefreshTokens.generate()
        let now = Date()
        try await deps.store.createSession(
            sessionId: sessionId, userId: userId, tokenHash: RefreshTokens.hash(refreshToken),
            expiresAt: now.addingTimeInterval(deps.configuration.refreshTokenTTL.timeInterval),
            credentialHash: credentialHash,
            logger: logger)
        let accessToken = try await accessToken(userId: userId, sessionId: sessionId, now: now)
        return (accessToken, refreshToken)
    }

    func accessToken(userId: String, sessionId: String, now: Date = Date()) async throws -> String {
        try await deps.signer.sign(
            AccessTokenClaims(
                userId: userId, sessionId: sessionId, issuedAt: now,
                expiresAt: now.addingTimeInterval(deps.configuration.accessTokenTTL.timeInterval)))
    }

    /// How long a rotated-away refresh token keeps working (G2 apps refresh in parallel without a lock).
    static let rotationGrace: TimeInterval = 60

    /// A new access token for a genuine but expired `accessToken` whose `refreshToken` is a live session of the same
    /// user (API conventions §10.3); 409 while the access token is still valid; 418 when the refresh token expired;
    /// 401 when either token is missing, unverifiable, unknown, revoked or someone else's. Revocation is checked
    /// before expiry: a withdrawn or logged-out session's still-valid access token gets 401, not 409. The refresh
    /// token is not rotated for G1 (its clients keep using the one they have); `rotate` (G2, decision 0021) adds a
    /// new refresh token to the session and answers it too, the presented one working on for `rotationGrace`.
    func renew(accessToken: String?, refreshToken: String?, rotate: Bool = false, logger: Logger) async throws -> (
        accessToken: String, refreshToken: String?
    ) {
        guard let accessToken else { throw APIError.unauthorized("액세스 토큰이 없습니다. (missing access token)") }
        let user: AuthenticatedUser
        switch await deps.verifier.verify(accessToken) {
        case .invalid:
            throw APIError.unauthorized()
        case .valid(let validUser):
            guard
                try await deps.store.isActive(userId: validUser.userId, sessionId: validUser.sessionId, logger: logger)
            else {
                throw APIError.unauthorized("탈퇴했거나 로그아웃된 계정입니다. (account no longer active)")
            }
            throw APIError.conflict("액세스 토큰이 만료되지 않았습니다. (access token has not expired yet)")
        case .expired(let expiredUser):
            user = expiredUser
        }
        guard let refreshToken = refreshToken?.trimmingCharacters(in: .whitespaces), !refreshToken.isEmpty,
            refreshToken.utf8.count <= 512
        else {
            throw APIError.unauthorized("리프레시 토큰이 없습니다. (missing Refresh header)")
        }
        guard
            let session = try await deps.store.session(tokenHash: RefreshTokens.hash(refreshToken), logger: logger),
            session.userId == user.userId, !session.revoked, session.accountActive
        else {
            throw APIError.unauthorized("인증할 수 없는 리프레시 토큰입니다. (refresh token cannot be verified)")
        }
        if let replacedAt = session.replacedAt, replacedAt.addingTimeInterval(Self.rotationGrace) < Date() {
            throw APIError.unauthorized("이미 교체된 리프레시 토큰입니다. (refresh token was replaced)")
        }
        guard session.expiresAt > Date() else {
            throw APIError.refreshTokenExpired()
        }
        try await deps.store.touchSession(session.sessionId, logger: logger)
        let access = try await self.accessToken(userId: user.userId, sessionId: session.sessionId)
        guard rotate else { return (access, nil) }
        let next = RefreshTokens.generate()
        try await deps.store.rotate(
            sessionId: session.sessionId, oldHash: RefreshTokens.hash(refreshToken),
            newHash: RefreshTokens.hash(next), forget: Self.rotationGrace, logger: logger)
        return (access, next)
    }
}
