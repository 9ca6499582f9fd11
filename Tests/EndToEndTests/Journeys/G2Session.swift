import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// A signed-in G2 app (decision 0021), as WeeMo and mychelin call the server: `SeSACKey` (WeeMo's spelling),
/// `ProductId` and `Content-Type: application/json` on every request (GETs too), the bare access token. On **419**
/// it calls `GET /v1/auth/refresh` with the expired access token and the refresh token (`RefreshToken`, WeeMo; or
/// `Refresh`, mychelin), stores **both** tokens of the answer and retries once.
actor G2Session {
    let gateway: GatewayClient
    let refreshHeader: String
    private(set) var userId: String
    private(set) var nick: String
    private(set) var accessToken: String
    private(set) var refreshToken: String
    private(set) var refreshes = 0

    init(gateway: GatewayClient, login: JSONObject, refreshHeader: String) throws {
        self.gateway = gateway
        self.refreshHeader = refreshHeader
        userId = try #require(login.string("user_id"))
        nick = try #require(login.string("nick"))
        accessToken = try #require(login.string("accessToken"))
        refreshToken = try #require(login.string("refreshToken"))
    }

    static func headers(_ extra: [String: String] = [:]) throws -> [String: String] {
        ["SeSACKey": try TestEnvironment.apiKey(), "ProductId": TestEnvironment.productId].merging(extra) { $1 }
    }

    /// WeeMo's sign-up: `POST /v1/users/validation/email`, then `POST /v1/users/join`, whose answer carries the
    /// tokens (WeeMo stores them and goes on signed in, without a login).
    static func join(_ gateway: GatewayClient, refreshHeader: String = "RefreshToken") async throws -> G2Session {
        let nick = TestEnvironment.unique("g2")
        let email = "\(nick)@example.com"
        let check = try await gateway.send(
            "POST", "/v1/users/validation/email", json: #"{"email":"\#(email)"}"#, headers: try headers(),
            withKey: false)
        #expect(check.status == 200, "\(check.text)")
        let joined = try await gateway.send(
            "POST", "/v1/users/join", json: #"{"email":"\#(email)","password":"password123","nick":"\#(nick)"}"#,
            headers: try headers(), withKey: false)
        #expect(joined.status == 200, "\(joined.text)")
        #expect(Set(try joined.json.keys) == ["user_id", "email", "nick", "accessToken", "refreshToken"])
        return try G2Session(gateway: gateway, login: try joined.json, refreshHeader: refreshHeader)
    }

    /// WeeMo's Kakao sign-in: the Kakao SDK's access token (from the stack's identity-provider test server) in
    /// `POST /v1/users/login/kakao`; the answer is a G2 login.
    static func kakao(_ gateway: GatewayClient) async throws -> G2Session {
        let idp = GatewayClient(baseURL: URL(string: try TestEnvironment.identityProviderURL())!)
        let issued = try await idp.send("POST", "/__sandbox/kakao/tokens", json: "{}")
        let token = try #require(try issued.json.string("access_token"), "\(issued.text)")
        let login = try await gateway.send(
            "POST", "/v1/users/login/kakao", json: #"{"oauthToken":"\#(token)"}"#, headers: try headers(),
            withKey: false)
        #expect(login.status == 200, "\(login.text)")
        return try G2Session(gateway: gateway, login: try login.json, refreshHeader: "RefreshToken")
    }

    func send(_ method: String, _ path: String, json: String? = nil) async throws -> GatewayClient.Reply {
        try await intercepted { token in
            try await self.gateway.send(
                method, path, body: json.map { Data($0.utf8) }, contentType: "application/json",
                headers: try Self.headers(["Authorization": token]), withKey: false)
        }
    }

    /// `POST /v1/posts/files` (or a chat room's files): one `files` part per image.
    func upload(_ path: String, _ images: [[UInt8]]) async throws -> [String] {
        let reply = try await intercepted { token in
            try await self.gateway.upload(
                path, field: "files",
                files: images.enumerated().map { ("image_\($0.offset).png", "image/png", $0.element) },
                headers: try Self.headers(["Authorization": token]))
        }
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(APIModels.UploadedFiles.self).files
    }

    /// An image as Kingfisher loads it with the app's headers, at `url` (the app builds it from the path).
    func image(_ url: String) async throws -> GatewayClient.Reply {
        try await gateway.send("GET", url, headers: try Self.headers(["Authorization": accessToken]), withKey: false)
    }

    private func intercepted(_ request: @Sendable (String) async throws -> GatewayClient.Reply) async throws
        -> GatewayClient.Reply
    {
        let first = try await request(accessToken)
        guard first.status == 419 else { return first }
        let renewed = try await gateway.send(
            "GET", "/v1/auth/refresh",
            headers: try Self.headers(["Authorization": accessToken, refreshHeader: refreshToken]), withKey: false)
        #expect(renewed.status == 200, "refresh: \(renewed.text)")
        #expect(Set(try renewed.json.keys) == ["accessToken", "refreshToken"])
        accessToken = try #require(try renewed.json.string("accessToken"))
        refreshToken = try #require(try renewed.json.string("refreshToken"))
        refreshes += 1
        return try await request(accessToken)
    }

    /// The access token expires (as `AppSession.letAccessTokenExpire`).
    func letAccessTokenExpire() async throws {
        accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userId)
    }
}
