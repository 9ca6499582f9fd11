import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// One signed-in 2023 (G0) app, as Mobbie and Best Moment are written (API conventions §4, §5): no `/v1` prefix,
/// `SesacKey` on every request, the bare access token in `Authorization`, and their interceptor (Best Moment's
/// `AuthManager`, Mobbie's `AuthInterceptor`): on **419** call `GET /refresh` with the expired access token and
/// the refresh token, take `token` from the answer, keep the refresh token, retry once. The same style as the
/// G1 `AppSession`.
actor G0AppSession {
    let gateway: GatewayClient
    let email: String
    let password: String
    private(set) var userId: String
    private(set) var nick: String
    private(set) var token: String
    private(set) var refreshToken: String
    /// What the interceptor did, for the journeys to assert on.
    private(set) var refreshes = 0

    private init(
        gateway: GatewayClient, email: String, password: String, userId: String, nick: String, token: String,
        refresh: String
    ) {
        self.gateway = gateway
        self.email = email
        self.password = password
        self.userId = userId
        self.nick = nick
        self.token = token
        self.refreshToken = refresh
    }

    /// The sign-up screen: `POST /validation/email`, `POST /join` (`{_id, email, nick}`), then `POST /login`
    /// (`{_id, token, refreshToken}`).
    static func signUp(_ gateway: GatewayClient, nick: String = TestEnvironment.unique("g0app")) async throws
        -> G0AppSession
    {
        let email = "\(nick)@example.com"
        let password = "password123"
        let check = try await gateway.send("POST", "/validation/email", json: #"{"email":"\#(email)"}"#)
        #expect(check.status == 200, "\(check.text)")
        let joined = try await gateway.send(
            "POST", "/join", json: #"{"email":"\#(email)","password":"\#(password)","nick":"\#(nick)"}"#)
        #expect(joined.status == 200, "\(joined.text)")
        #expect(try joined.json.keys == ["_id", "email", "nick"])
        let login = try await gateway.send("POST", "/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        #expect(login.status == 200, "\(login.text)")
        let json = try login.json
        #expect(json.keys == ["_id", "token", "refreshToken"])
        let userId = try #require(json.string("_id"))
        #expect(userId == (try joined.json.string("_id")))
        return G0AppSession(
            gateway: gateway, email: email, password: password, userId: userId, nick: nick,
            token: try #require(json.string("token")), refresh: try #require(json.string("refreshToken")))
    }

    /// An authenticated request (JSON body if given) through the interceptor.
    func send(_ method: String, _ path: String, json: String? = nil) async throws -> GatewayClient.Reply {
        try await intercepted { token in
            try await self.gateway.send(method, path, json: json, headers: ["Authorization": token])
        }
    }

    /// A multipart request (post create/edit, profile edit) through the interceptor.
    func send(_ method: String, _ path: String, form: MultipartForm) async throws -> GatewayClient.Reply {
        try await intercepted { token in
            try await self.gateway.send(
                method, path, body: form.finished(), contentType: form.contentType, headers: ["Authorization": token])
        }
    }

    /// An image GET the G0 way: `{base}/{path}` (no prefix) with both headers (API conventions §1.3).
    func image(_ path: String) async throws -> GatewayClient.Reply {
        try await intercepted { token in
            try await self.gateway.send("GET", "/\(path)", headers: ["Authorization": token])
        }
    }

    private func intercepted(_ request: @Sendable (String) async throws -> GatewayClient.Reply) async throws
        -> GatewayClient.Reply
    {
        let first = try await request(token)
        guard first.status == 419 else { return first }
        let renewed = try await gateway.send(
            "GET", "/refresh", headers: ["Authorization": token, "Refresh": refreshToken])
        guard renewed.status == 200 else {
            Issue.record("refresh answered \(renewed.status): \(renewed.text)")
            return first
        }
        #expect(try renewed.json.keys == ["token"])
        refreshes += 1
        token = try #require(try renewed.json.string("token"))
        return try await request(token)
    }

    /// The access token expires: replaced by a token for the same session that expired 100 s ago (signed with
    /// the stack's key, as auth would have issued it earlier).
    func letAccessTokenExpire() async throws {
        let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())
        token = try await signer.sign(
            AccessTokenClaims(
                userId: userId, sessionId: AppSession.sessionId(in: token),
                issuedAt: Date().addingTimeInterval(-700),
                expiresAt: Date().addingTimeInterval(-100)))
    }
}

extension MultipartForm {
    /// A G0 post form (API conventions §4, §8): text parts, then one `file` part per image, as Alamofire/Moya build it.
    static func g0Post(_ fields: KeyValuePairs<String, String>, images: [[UInt8]] = []) -> MultipartForm {
        var form = MultipartForm()
        for (name, value) in fields { form.field(name, value) }
        for (index, image) in images.enumerated() {
            form.file("file", filename: "image\(index).jpg", mimeType: "image/jpg", bytes: image)
        }
        return form
    }
}
