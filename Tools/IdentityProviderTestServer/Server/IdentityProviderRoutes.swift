import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// What the real providers serve, as our auth service calls it:
/// - `GET /firebase/jwks` — Firebase's ID-token keys (the real ones: googleapis.com's securetoken JWK set);
/// - `GET /apple/auth/keys` — Sign in with Apple's keys (the real ones: `https://appleid.apple.com/auth/keys`);
/// - `GET /v1/user/access_token_info`, `GET /v2/user/me` — Kakao's REST API (`https://kapi.kakao.com`), with
///   `Authorization: Bearer <access token>`, answering Kakao's shapes and its `{"msg","code"}` errors.
struct IdentityProviderRoutes: Sendable {
    let provider: IdentityProvider

    func add(to router: Router<BasicRequestContext>) {
        router.get("/firebase/jwks") { _, _ in try await self.jwks(.firebase) }
        router.get("/apple/auth/keys") { _, _ in try await self.jwks(.apple) }
        router.get("/v1/user/access_token_info") { request, _ in
            try await self.kakao(request) { token, remaining in
                JSONBody.make(["id": token.userId, "expires_in": remaining, "app_id": Int64(token.appId)])
            }
        }
        router.get("/v2/user/me") { request, _ in
            try await self.kakao(request) { token, _ in
                var account: [String: Any] = ["has_email": token.email != nil]
                if let email = token.email {
                    account["email"] = email
                    account["is_email_valid"] = true
                    account["is_email_verified"] = true
                }
                return JSONBody.make([
                    "id": token.userId, "connected_at": "2026-01-01T00:00:00Z", "kakao_account": account,
                ])
            }
        }
    }

    private func jwks(_ realm: IdentityProvider.Realm) async throws -> Response {
        let (json, maxAge) = try await provider.jwks(realm)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "public, max-age=\(maxAge), must-revalidate, no-transform"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: .init(bytes: json)))
    }

    private func kakao(_ request: Request, answer: @Sendable (IdentityProvider.KakaoToken, Int) -> Response)
        async throws -> Response
    {
        let header = request.headers[.authorization] ?? ""
        let bearer = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
        if let fault = await provider.beginKakaoCall(token: bearer) {
            switch fault {
            case .slow(let delay): try await Task.sleep(for: delay)
            case .error(let status):
                return JSONBody.make(["msg": "internal error", "code": -1], status: .init(code: status))
            }
        }
        guard header.hasPrefix("Bearer "), !header.dropFirst(7).isEmpty else {
            return JSONBody.make(["msg": "authentication info is missing", "code": -2], status: .unauthorized)
        }
        let now = Date()
        guard let token = await provider.kakaoToken(String(header.dropFirst(7)), now: now) else {
            return JSONBody.make(["msg": "this access token does not exist", "code": -401], status: .unauthorized)
        }
        return answer(token, max(0, Int(token.expiresAt.timeIntervalSince(now))))
    }
}

/// JSON answers built from plain dictionaries (the shapes of the real providers).
enum JSONBody {
    static func make(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: .init(bytes: data)))
    }

    static func encode(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: .init(bytes: data)))
    }
}
