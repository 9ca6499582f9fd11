/// Response bodies of the 2023 (G0) auth routes (API conventions §4): the same results as the G1 bodies in
/// `AuthDTOs.swift`, spelled the G0 way — `_id` for `user_id`, `token` for `accessToken`.

/// `POST /join` and `GET|POST /withdraw` → `{_id, email, nick}`.
struct G0AccountSummary: Encodable, Sendable, Equatable {
    var id: String
    var email: String
    var nick: String

    enum CodingKeys: String, CodingKey { case id = "_id", email, nick }

    init(_ summary: AccountSummary) {
        id = summary.userId
        email = summary.email
        nick = summary.nick
    }
}

/// `POST /login` → `{_id, token, refreshToken}`.
struct G0LoginResponse: Encodable, Sendable, Equatable {
    var id: String
    var token: String
    var refreshToken: String

    enum CodingKeys: String, CodingKey { case id = "_id", token, refreshToken }

    init(_ login: LoginResponse) {
        id = login.userId
        token = login.accessToken
        refreshToken = login.refreshToken
    }
}

/// `GET /refresh` → `{token}`.
struct G0RefreshResponse: Encodable, Sendable, Equatable {
    var token: String
}
