import Foundation
import Hummingbird

/// The sandbox API under `/__sandbox/`, for the local stack and end-to-end tests. NO authentication by design —
/// a test server: never expose it beyond loopback or a private test network.
///
/// | call | does |
/// |---|---|
/// | `GET /__sandbox/health` | `{"status":"ok"}` |
/// | `POST /__sandbox/id-tokens/{firebase\|apple}` `{sub, phone_number?, email?, aud?, iss?, expires_in?, iat_offset?, auth_time_offset?, omit_auth_time?, kid?, unpublished_key?, tamper?, alg?}` | `{"idToken"}` signed by the realm's current key |
/// | `POST /__sandbox/keys/{firebase\|apple}/rotate` `{retire_previous?}` | publishes a new signing key: `{"kid","published":[…]}` |
/// | `PUT /__sandbox/jwks-max-age` `{seconds}` | the JWKS answers' `Cache-Control: max-age` |
/// | `POST /__sandbox/kakao/tokens` `{id?, app_id?, expires_in?, email?}` | `{"access_token","id"}` |
/// | `POST /__sandbox/kakao/tokens/revoke` `{access_token}` | Kakao forgets the token |
/// | `POST /__sandbox/kakao/faults` `{kind: slow\|error, delay_ms?, status?, times?, access_token?}`; `DELETE …/faults` | faults of the next Kakao calls (presenting that token) |
/// | `GET /__sandbox/stats` | `{"jwks_fetches":{"firebase","apple"},"kakao_calls"}` |
struct IdentityProviderSandboxRoutes: Sendable {
    let provider: IdentityProvider

    func add(to router: Router<BasicRequestContext>) {
        let sandbox = router.group("/__sandbox")
        sandbox.get("/health") { _, _ in JSONBody.make(["status": "ok"]) }
        sandbox.get("/stats") { _, _ in JSONBody.encode(await self.provider.statistics()) }
        sandbox.post("/id-tokens/{realm}") { request, context in
            guard let realm = context.parameters.get("realm").flatMap(IdentityProvider.Realm.init(rawValue:)) else {
                return Self.badRequest("realm must be firebase or apple")
            }
            guard let body = try? await request.decode(as: IdentityProvider.TokenRequest.self, context: context) else {
                return Self.badRequest("body must be {\"sub\": String, …}")
            }
            let token = try await self.provider.issueIDToken(realm, body)
            return JSONBody.make(["idToken": token])
        }
        sandbox.post("/keys/{realm}/rotate") { request, context in
            guard let realm = context.parameters.get("realm").flatMap(IdentityProvider.Realm.init(rawValue:)) else {
                return Self.badRequest("realm must be firebase or apple")
            }
            let body = try? await request.decode(as: [String: Bool].self, context: context)
            let kid = try await self.provider.rotateKeys(realm, retirePrevious: body?["retire_previous"] ?? false)
            let published = try await self.provider.publishedKeyIds(realm)
            return JSONBody.make(["kid": kid, "published": published])
        }
        sandbox.put("/jwks-max-age") { request, context in
            guard let body = try? await request.decode(as: [String: Int].self, context: context),
                let seconds = body["seconds"], seconds >= 0
            else {
                return Self.badRequest("body must be {\"seconds\": Int}")
            }
            await self.provider.setJWKSMaxAge(seconds)
            return JSONBody.make(["seconds": seconds])
        }
        sandbox.post("/kakao/tokens") { request, context in
            struct Body: Decodable {
                var id: Int64?
                var appId: Int?
                var expiresIn: Int?
                var email: String?
                enum CodingKeys: String, CodingKey { case id, appId = "app_id", expiresIn = "expires_in", email }
            }
            let body = (try? await request.decode(as: Body.self, context: context)) ?? Body()
            let issued = await self.provider.issueKakaoToken(
                userId: body.id, appId: body.appId, expiresIn: body.expiresIn ?? 21_599,
                email: body.email)
            return JSONBody.make(["access_token": issued.token, "id": issued.userId])
        }
        sandbox.post("/kakao/tokens/revoke") { request, context in
            guard let body = try? await request.decode(as: [String: String].self, context: context),
                let token = body["access_token"]
            else {
                return Self.badRequest("body must be {\"access_token\": String}")
            }
            await self.provider.revokeKakaoToken(token)
            return JSONBody.make(["revoked": true])
        }
        sandbox.post("/kakao/faults") { request, context in
            struct Body: Decodable {
                var kind: String
                var delayMs: Int?
                var status: Int?
                var times: Int?
                var accessToken: String?
                enum CodingKeys: String, CodingKey {
                    case kind, delayMs = "delay_ms", status, times, accessToken = "access_token"
                }
            }
            guard let body = try? await request.decode(as: Body.self, context: context) else {
                return Self.badRequest("body must be {\"kind\": \"slow\"|\"error\", …}")
            }
            let fault: IdentityProvider.KakaoFault
            switch body.kind {
            case "slow": fault = .slow(.milliseconds(body.delayMs ?? 10_000))
            case "error": fault = .error(status: body.status ?? 500)
            default: return Self.badRequest("kind must be slow or error")
            }
            await self.provider.addKakaoFault(fault, times: body.times ?? 1, token: body.accessToken)
            return JSONBody.make(["armed": true])
        }
        sandbox.delete("/kakao/faults") { _, _ in
            await self.provider.clearKakaoFaults()
            return JSONBody.make(["cleared": true])
        }
    }

    static func badRequest(_ error: String) -> Response {
        JSONBody.make(["error": error], status: .badRequest)
    }
}
