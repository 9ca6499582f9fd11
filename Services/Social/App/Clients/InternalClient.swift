import Foundation
import Logging
import NIOCore
import SNSPlatform

/// The two synchronous calls of a profile edit (decision 0006), made with the caller's own access token so
/// the callee authorizes exactly as for a client: media stores the image, auth (the owner of nicks and
/// profile fields) validates and writes the profile and publishes `user-updated`. A 4xx from them is passed
/// on to the app as is (402, 409, 400 …); an unreachable or failing service is a 503 the app can retry.
struct InternalClient: Sendable {
    let auth: InternalServiceClient
    let media: InternalServiceClient

    init(authURL: String, mediaURL: String, apiKey: String, timeout: Duration) {
        auth = InternalServiceClient(service: "auth", baseURL: authURL, apiKey: apiKey, timeout: timeout)
        media = InternalServiceClient(service: "media", baseURL: mediaURL, apiKey: apiKey, timeout: timeout)
    }

    /// The account's profile as auth answers it.
    struct AccountProfile: Decodable, Sendable {
        var userId: String
        var email: String
        var nick: String
        var phoneNum: String?
        var birthDay: String?
        var profileImage: String?
        var updatedAt: Date

        enum CodingKeys: String, CodingKey {
            case userId = "user_id", email, nick, phoneNum, birthDay, profileImage, updatedAt
        }
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

    func storeProfileImage(_ bytes: ByteBuffer, token: String, trace: TraceContext, logger: Logger) async throws
        -> String
    {
        struct Stored: Decodable { var path: String }
        return try await media.call(
            .POST, "/internal/v1/profile-images", body: bytes, contentType: "application/octet-stream", token: token,
            trace: trace, logger: logger, as: Stored.self
        ).path
    }

    func updateProfile(_ update: ProfileUpdate, token: String, trace: TraceContext, logger: Logger) async throws
        -> AccountProfile
    {
        try await auth.call(
            .PUT, "/internal/v1/profile", body: ByteBuffer(string: update.json), contentType: "application/json",
            token: token, trace: trace, logger: logger, as: AccountProfile.self)
    }
}
