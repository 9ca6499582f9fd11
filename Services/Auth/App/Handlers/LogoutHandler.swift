import HTTPTypes
import Hummingbird
import SNSPlatform

/// `POST /v1/users/logout` (ours, beyond LSLP): revokes the refresh-token session the access token belongs
/// to; the refresh token stops working at once and auth rejects that session's access tokens. Other services
/// keep accepting the access token until it expires (they verify locally), which is why it is short-lived.
struct LogoutHandler: Sendable {
    let deps: AuthDependencies

    static let message = "로그아웃 되었습니다. (logged out)"

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        _ = try await deps.postgres.transaction(logger: context.logger) { connection in
            try await deps.store.revokeSessions(
                userId: user.userId, sessionId: user.sessionId, on: connection, logger: context.logger)
        }
        return try .json(MessageBody(message: Self.message))
    }
}
