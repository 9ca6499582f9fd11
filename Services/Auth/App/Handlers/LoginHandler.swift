import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SNSPlatform

/// `POST /v1/users/login` → `{user_id, email, nick, profileImage?, accessToken, refreshToken}`;
/// 401 for an unknown email or a wrong password (the same message and about the same time for both).
struct LoginHandler: Sendable {
    let deps: AuthDependencies

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        try .json(try await logIn(request, context: context))
    }

    /// The login itself, shared by the G1 and G0 encodings.
    func logIn(_ request: Request, context: APIRequestContext) async throws -> LoginResponse {
        let body = try await request.decodeJSON(as: LoginRequest.self, context: context)
        guard !body.email.isEmpty, !body.password.isEmpty else {
            throw APIError.badRequest("필수값을 채워주세요. (email and password are required)")
        }
        let account = try await deps.store.activeAccount(email: body.email, logger: context.logger)
        // An account made by federated sign-in has no password: it is checked against the dummy hash like an
        // unknown email, and refused whatever the password.
        let matches = try await deps.hasher.verify(body.password, hash: account?.passwordHash ?? deps.dummyPasswordHash)
        guard let account, account.passwordHash != nil, matches else {
            throw APIError.unauthorized("계정을 확인해주세요. (unknown account or wrong password)")
        }
        let session = try await SessionIssuer(deps: deps).startSession(userId: account.userId, logger: context.logger)
        context.logger.info("login", metadata: ["user_id": "\(account.userId)"])
        return LoginResponse(
            userId: account.userId, email: account.email, nick: account.nick, profileImage: account.profileImage,
            accessToken: session.accessToken, refreshToken: session.refreshToken)
    }
}

/// Creates refresh-token sessions and signs access tokens bound to them.
struct SessionIssuer: Sendable {
    let deps: AuthDependencies

    /// `credentialHash`: the federated credential that opened the session (see `VerifiedIdentity`), if any.
    func startSession(userId: String, credentialHash: [UInt8]? = nil, logger: Logger) async throws -> (
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
}
