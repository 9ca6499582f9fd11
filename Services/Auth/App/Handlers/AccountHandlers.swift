import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// Sign-up, login, token renewal and withdrawal in both API generations (API conventions §2.1, §4, decision 0011):
/// G1 `POST /v1/users/join` → `{user_id, email, nick}`, `POST /v1/users/login` → `{user_id, email, nick,
/// profileImage?, accessToken, refreshToken}`, `GET /v1/auth/refresh` → `{accessToken}`, `GET /v1/users/withdraw` →
/// `{user_id, email, nick}`; G0 (`format` `.g0`) `POST /join` → `{_id, email, nick}`, `POST /login` → `{_id, token,
/// refreshToken}`, `GET /refresh` → `{token}`, `GET`/`POST /withdraw` → `{_id, email, nick}`. G2 (`ProductId`,
/// decision 0021): the join answers like a login (with tokens), the refresh rotates and answers `{accessToken,
/// refreshToken}`, image paths carry a leading slash. The work is done by `Accounts` and `Sessions`.
struct AccountHandlers: Sendable {
    let accounts: Accounts
    let sessions: Sessions
    var format: WireFormat = .g1

    func join(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: JoinRequest.self, context: context)
        let account = try await accounts.join(body, trace: context.trace, logger: context.logger)
        switch context.wireFormat(format) {
        case .g1: return try .json(account)
        case .g0: return try .json(G0AccountSummary(account))
        case .g2:
            // WeeMo stores the tokens of the join's answer and goes on signed in.
            let tokens = try await sessions.start(userId: account.userId, logger: context.logger)
            return try .json(
                LoginResponse(
                    userId: account.userId, email: account.email, nick: account.nick, profileImage: nil,
                    accessToken: tokens.accessToken, refreshToken: tokens.refreshToken))
        }
    }

    func login(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: LoginRequest.self, context: context)
        let login = try await accounts.logIn(body, logger: context.logger)
        switch context.wireFormat(format) {
        case .g1: return try .json(login)
        case .g0: return try .json(G0LoginResponse(login))
        case .g2: return try .json(login.g2)
        }
    }

    /// `Authorization` = the (expired) access token, `Refresh` (or G2's `RefreshToken`) = the refresh token.
    func refresh(_ request: Request, context: APIRequestContext) async throws -> Response {
        let format = context.wireFormat(format)
        let renewed = try await sessions.renew(
            accessToken: AuthenticationMiddleware.token(from: request),
            refreshToken: request.headers[.refresh] ?? request.headers[.refreshToken], rotate: format == .g2,
            logger: context.logger)
        switch format {
        case .g1: return try .json(RefreshResponse(accessToken: renewed.accessToken))
        case .g0: return try .json(G0RefreshResponse(token: renewed.accessToken))
        case .g2:
            return try .json(
                G2RefreshResponse(accessToken: renewed.accessToken, refreshToken: renewed.refreshToken ?? ""))
        }
    }

    func withdraw(_ request: Request, context: APIRequestContext) async throws -> Response {
        let account = try await accounts.withdraw(by: try context.caller())
        return try format == .g0 ? .json(G0AccountSummary(account)) : .json(account)
    }
}
