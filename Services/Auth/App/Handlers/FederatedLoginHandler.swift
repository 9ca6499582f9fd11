import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// `POST /v1/users/login/firebase {idToken}`, `POST /v1/users/login/apple {idToken, nick?}`,
/// `POST /v1/users/login/kakao {oauthToken}` → the same `{user_id, email, nick, profileImage?, accessToken,
/// refreshToken}` as an email login. 400: provider not configured, or no token; 401: the token is not valid (or
/// predates the withdrawal of the account it belonged to); 503: the provider cannot be asked. The first sign-in
/// of an identity creates its account (decision 0012).
struct FederatedLoginHandler: Sendable {
    let deps: AuthDependencies
    let provider: FederatedProvider

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        try deps.identityProviders.requireConfigured(provider)
        let credential: String
        var suggestedNick: String?
        switch provider {
        case .firebase, .apple:
            let body = try await request.decodeJSON(as: IDTokenLoginRequest.self, context: context)
            credential = body.idToken
            if provider == .apple { suggestedNick = body.nick }
        case .kakao:
            credential = try await request.decodeJSON(as: KakaoLoginRequest.self, context: context).oauthToken
        }
        guard !credential.isEmpty else {
            throw APIError.badRequest("필수값을 채워주세요. (\(provider == .kakao ? "oauthToken" : "idToken") is required)")
        }
        let identity = try await deps.identityProviders.verify(provider, credential: credential, logger: context.logger)
        let answer = try await FederatedSignIn(deps: deps).signIn(
            identity, suggestedNick: suggestedNick, context: context)
        return try .json(context.productId == nil ? answer : answer.g2)
    }
}
