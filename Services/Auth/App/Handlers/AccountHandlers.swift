import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// Sign-up, login, token renewal and withdrawal in both API generations (API conventions §2.1, §4, decision 0011):
/// G1 `POST /v1/users/join` → `{user_id, email, nick}`, `POST /v1/users/login` → `{user_id, email, nick,
/// profileImage?, accessToken, refreshToken}`, `GET /v1/auth/refresh` → `{accessToken}`, `GET /v1/users/withdraw` →
/// `{user_id, email, nick}`; G0 (`format` `.g0`) `POST /join` → `{_id, email, nick}`, `POST /login` → `{_id, token,
/// refreshToken}`, `GET /refresh` → `{token}`, `GET`/`POST /withdraw` → `{_id, email, nick}`. The work is done by
/// `Accounts` and `Sessions`.
struct AccountHandlers: Sendable {
    let accounts: Accounts
    let sessions: Sessions
    var format: WireFormat = .g1

    func join(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: JoinRequest.self, context: context)
        let account = try await accounts.join(body, trace: context.trace, logger: context.logger)
        return try format == .g1 ? .json(account) : .json(G0AccountSummary(account))
    }

    func login(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: LoginRequest.self, context: context)
        let login = try await accounts.logIn(body, logger: context.logger)
        return try format == .g1 ? .json(login) : .json(G0LoginResponse(login))
    }

    /// `Authorization` = the (expired) access token, `Refresh` = the refresh token.
    func refresh(_ request: Request, context: APIRequestContext) async throws -> Response {
        let token = try await sessions.renew(
            accessToken: AuthenticationMiddleware.token(from: request), refreshToken: request.headers[.refresh],
            logger: context.logger)
        return try format == .g1 ? .json(RefreshResponse(accessToken: token)) : .json(G0RefreshResponse(token: token))
    }

    func withdraw(_ request: Request, context: APIRequestContext) async throws -> Response {
        let account = try await accounts.withdraw(by: try context.caller())
        return try format == .g1 ? .json(account) : .json(G0AccountSummary(account))
    }
}
