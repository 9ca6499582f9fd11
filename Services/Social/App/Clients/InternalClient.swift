import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SNSPlatform

/// The two synchronous calls of a profile edit (decision 0006), made with the caller's own access token so
/// the callee authorizes exactly as for a client: media stores the image, auth (the owner of nicks and
/// profile fields) validates and writes the profile and publishes `user-updated`. A 4xx from them is passed
/// on to the app as is (402, 409, 400 …); an unreachable or failing service is a 503 the app can retry.
struct InternalClient: Sendable {
    let authURL: String
    let mediaURL: String
    let apiKey: String
    let timeout: Duration

    /// The account's profile as auth answers it.
    struct AccountProfile: Decodable, Sendable {
        var userId: String
        var email: String
        var nick: String
        var phoneNum: String?
        var birthDay: String?
        var profileImage: String?
        var updatedAt: Date

        enum CodingKeys: String, CodingKey { case userId = "user_id", email, nick, phoneNum, birthDay, profileImage, updatedAt }
    }

    /// `PUT /internal/v1/profile` body: absent = unchanged, `null` clears (phone, birthday).
    struct ProfileUpdate: Sendable {
        var nick: String?
        var phoneNum: Field?
        var birthDay: Field?
        var profileImage: String?

        enum Field: Sendable { case clear, set(String) }

        var json: String {
            var parts: [String] = []
            if let nick { parts.append("\"nick\":" + APIError.jsonString(nick)) }
            for (key, field) in [("phoneNum", phoneNum), ("birthDay", birthDay)] {
                switch field {
                case nil: break
                case .clear?: parts.append("\"\(key)\":null")
                case .set(let value)?: parts.append("\"\(key)\":" + APIError.jsonString(value))
                }
            }
            if let profileImage { parts.append("\"profileImage\":" + APIError.jsonString(profileImage)) }
            return "{" + parts.joined(separator: ",") + "}"
        }
    }

    func storeProfileImage(_ bytes: ByteBuffer, token: String, trace: TraceContext, logger: Logger) async throws -> String {
        struct Stored: Decodable { var path: String }
        var request = HTTPClientRequest(url: mediaURL + "/internal/v1/profile-images")
        request.method = .POST
        request.headers = headers(token: token, trace: trace, contentType: "application/octet-stream")
        request.body = .bytes(bytes)
        return try await send(request, service: "media", logger: logger, as: Stored.self).path
    }

    func updateProfile(_ update: ProfileUpdate, token: String, trace: TraceContext, logger: Logger) async throws -> AccountProfile {
        var request = HTTPClientRequest(url: authURL + "/internal/v1/profile")
        request.method = .PUT
        request.headers = headers(token: token, trace: trace, contentType: "application/json")
        request.body = .bytes(ByteBuffer(string: update.json))
        return try await send(request, service: "auth", logger: logger, as: AccountProfile.self)
    }

    private func headers(token: String, trace: TraceContext, contentType: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "SesacKey", value: apiKey)
        headers.add(name: "Authorization", value: token)
        headers.add(name: "Content-Type", value: contentType)
        if let requestId = trace.requestId { headers.add(name: "X-Request-ID", value: requestId) }
        if let traceparent = trace.traceparent { headers.add(name: "traceparent", value: traceparent) }
        return headers
    }

    private func send<T: Decodable>(_ request: HTTPClientRequest, service: String, logger: Logger, as: T.Type) async throws -> T {
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout.milliseconds)))
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            logger.error("internal call failed", metadata: ["service": "\(service)", "error": "\(error)"])
            throw APIError.unavailable("\(service) 서비스에 연결할 수 없습니다. (\(service) unavailable, try again)")
        }
        let status = Int(response.status.code)
        if status == 200 {
            do {
                return try APIJSON.decoder().decode(T.self, from: Data(buffer: body))
            } catch {
                logger.error("internal call answered unexpectedly", metadata: ["service": "\(service)", "error": "\(error)"])
                throw APIError.unavailable()
            }
        }
        if (400..<500).contains(status) {
            let message = (try? JSONDecoder().decode(MessageBody.self, from: Data(buffer: body)))?.message ?? "요청을 처리할 수 없습니다."
            throw APIError(status, message)
        }
        logger.error("internal call failed", metadata: ["service": "\(service)", "status": "\(status)"])
        throw APIError.unavailable("\(service) 서비스가 일시적으로 응답하지 않습니다. (\(service) failed, try again)")
    }
}
