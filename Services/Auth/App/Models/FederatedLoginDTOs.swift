/// Request bodies of federated sign-in (API conventions §0, G2; Firebase is ours). The answer is `LoginResponse`.

/// `POST /v1/users/login/firebase {idToken}` and `POST /v1/users/login/apple {idToken, nick?}`.
struct IDTokenLoginRequest: Decodable, Sendable {
    var idToken: String
    /// Apple only: the nick the app suggests for a new account (used if valid and free, else a generated one).
    var nick: String?
}

/// `POST /v1/users/login/kakao {oauthToken}`: the Kakao access token the Kakao SDK gave the app.
struct KakaoLoginRequest: Decodable, Sendable {
    var oauthToken: String
}
