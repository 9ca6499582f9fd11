import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SNSPlatform

/// Verifies a Kakao access token by asking Kakao (REST API): `GET /v1/user/access_token_info` says whose token
/// it is and for which app (it must be ours, `SNS_KAKAO_APP_ID`), `GET /v2/user/me` that the user exists (same
/// id). Each call has a deadline. Kakao's 401/400 → `rejected` (we answer 401); unreachable, timeout, 5xx or an
/// unreadable answer → `providerUnavailable` (503). The token is never logged.
struct KakaoClient: Sendable {
    let baseURL: String
    let appId: Int64
    let client: HTTPClient
    let timeout: Duration
    static let maxTokenLength = 4096

    /// The Kakao user id the token belongs to.
    func verify(_ token: String, logger: Logger) async throws -> Int64 {
        guard token.utf8.count <= Self.maxTokenLength,
            token.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else { throw FederationError.invalidToken("not a Kakao access token") }
        struct TokenInfo: Decodable {
            var id: Int64
            var appId: Int64
            var expiresIn: Int?
            enum CodingKeys: String, CodingKey { case id, appId = "app_id", expiresIn = "expires_in" }
        }
        struct Me: Decodable { var id: Int64 }
        let info = try await call("/v1/user/access_token_info", token: token, as: TokenInfo.self, logger: logger)
        guard info.appId == appId else { throw FederationError.rejected("token issued to another Kakao app") }
        let me = try await call("/v2/user/me", token: token, as: Me.self, logger: logger)
        guard me.id == info.id else { throw FederationError.rejected("token and user do not match") }
        return me.id
    }

    private func call<T: Decodable>(_ path: String, token: String, as type: T.Type, logger: Logger) async throws -> T {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .GET
        request.headers.add(name: "Authorization", value: "Bearer " + token)
        let status: HTTPResponseStatus
        let body: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            status = response.status
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            logger.warning("Kakao call failed", metadata: ["path": "\(path)", "error": "\(Swift.type(of: error))"])
            throw FederationError.providerUnavailable("Kakao \(path): \(error)")
        }
        switch status.code {
        case 200:
            guard let value = try? JSONDecoder().decode(T.self, from: Data(buffer: body)) else {
                throw FederationError.providerUnavailable("Kakao \(path): unreadable answer")
            }
            return value
        case 400, 401:
            // Kakao: -401 invalid or expired token, -2 malformed request/token.
            throw FederationError.rejected("Kakao does not accept the token")
        default:
            logger.warning("Kakao answered an error", metadata: ["path": "\(path)", "status": "\(status.code)"])
            throw FederationError.providerUnavailable("Kakao \(path) answered \(status.code)")
        }
    }
}
