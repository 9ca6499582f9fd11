import SNSPlatform

/// Request and response bodies of the auth endpoints, with the exact key names of API conventions §2.1.

struct JoinRequest: Decodable, Sendable {
    var email: String
    var password: String
    var nick: String
    var phoneNum: String?
    var birthDay: String?
}

/// `POST /v1/users/join` and `GET /v1/users/withdraw` → `{user_id, email, nick}`.
struct AccountSummary: Codable, Sendable, Equatable {
    var userId: String
    var email: String
    var nick: String

    enum CodingKeys: String, CodingKey {
        case userId = "user_id", email, nick
    }
}

struct EmailValidationRequest: Decodable, Sendable {
    var email: String
}

struct LoginRequest: Decodable, Sendable {
    var email: String
    var password: String
}

struct LoginResponse: Codable, Sendable, Equatable {
    var userId: String
    var email: String
    var nick: String
    var profileImage: String?
    var accessToken: String
    var refreshToken: String

    enum CodingKeys: String, CodingKey {
        case userId = "user_id", email, nick, profileImage, accessToken, refreshToken
    }
}

struct RefreshResponse: Codable, Sendable, Equatable {
    var accessToken: String
}

/// G2 `GET /v1/auth/refresh` → `{accessToken, refreshToken}` (both apps require both; decision 0021).
struct G2RefreshResponse: Codable, Sendable, Equatable {
    var accessToken: String
    var refreshToken: String
}

extension LoginResponse {
    /// G2 spells the image path with a leading slash.
    var g2: LoginResponse {
        var login = self
        login.profileImage = G2Path.encode(profileImage)
        return login
    }
}
