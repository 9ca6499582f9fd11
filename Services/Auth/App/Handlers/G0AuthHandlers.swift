import Hummingbird
import SNSPlatform

/// The 2023 (G0) auth routes (API conventions §4, decision 0011): only an encoding over the G1 handlers' domain
/// functions — the same validation, status codes (§5), transactions and events; only paths and keys differ.
/// `POST /validation/email` needs no wrapper: its request and answer are the same in both generations.
struct G0AuthHandlers: Sendable {
    let deps: AuthDependencies

    /// `POST /join` → `{_id, email, nick}`.
    func join(_ request: Request, context: APIRequestContext) async throws -> Response {
        try .json(G0AccountSummary(try await JoinHandler(deps: deps).join(request, context: context)))
    }

    /// `POST /login` → `{_id, token, refreshToken}`.
    func login(_ request: Request, context: APIRequestContext) async throws -> Response {
        try .json(G0LoginResponse(try await LoginHandler(deps: deps).logIn(request, context: context)))
    }

    /// `GET /refresh` (`Authorization` = the expired access token, `Refresh`) → `{token}`.
    func refresh(_ request: Request, context: APIRequestContext) async throws -> Response {
        try .json(G0RefreshResponse(token: try await RefreshHandler(deps: deps).renew(request, context: context)))
    }

    /// `GET /withdraw` and `POST /withdraw` (clients disagree, API conventions §9.1) → `{_id, email, nick}`.
    func withdraw(_ request: Request, context: APIRequestContext) async throws -> Response {
        try .json(G0AccountSummary(try await WithdrawHandler(deps: deps).withdraw(request, context: context)))
    }
}
