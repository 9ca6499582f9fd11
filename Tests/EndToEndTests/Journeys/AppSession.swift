import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// One signed-in iOS app, as the LSLP clients are written (API conventions §1, §5): `SesacKey` on every request, the
/// bare access token in `Authorization`, and the interceptor most G1 apps share (BookSNS's
/// `APIRequestInterceptor`): on **419** call `GET /v1/auth/refresh` with the expired access token and the
/// refresh token, keep the old refresh token, retry once; when the refresh answers **418**, log in again
/// (the app sends the user to its login screen) and retry.
/// The API generation a session speaks (API conventions §4): its paths and key names, and its interceptor.
enum APIGeneration: Sendable, Equatable {
    /// 2024 apps: `/v1` paths, `user_id`, `accessToken`; a refresh answering 418 sends the user to log in again.
    case g1
    /// 2023 apps (Mobbie, Best Moment): no prefix, `_id`, `token`; their interceptor only refreshes.
    case g0

    var prefix: String { self == .g1 ? "/v1" : "" }
    var join: String { self == .g1 ? "/v1/users/join" : "/join" }
    var login: String { self == .g1 ? "/v1/users/login" : "/login" }
    var refresh: String { self == .g1 ? "/v1/auth/refresh" : "/refresh" }
    var userIdKey: String { self == .g1 ? "user_id" : "_id" }
    var accessTokenKey: String { self == .g1 ? "accessToken" : "token" }
}

/// One signed-in iOS app, as the LSLP clients are written (API conventions §1, §5): `SesacKey` on every request, the
/// bare access token in `Authorization`, and the interceptor the apps share (BookSNS's `APIRequestInterceptor` in
/// G1, Best Moment's `AuthManager` and Mobbie's `AuthInterceptor` in G0): on **419** call the refresh route with the
/// expired access token and the refresh token, keep the old refresh token, retry once; in G1, when the refresh
/// answers **418**, log in again (the app sends the user to its login screen) and retry.
actor AppSession {
    let gateway: GatewayClient
    let generation: APIGeneration
    let email: String
    let password: String
    private(set) var userId: String
    private(set) var nick: String
    private(set) var accessToken: String
    private(set) var refreshToken: String
    /// What the interceptor did, for the journeys to assert on.
    private(set) var refreshes = 0
    private(set) var logins = 0

    private init(
        gateway: GatewayClient, generation: APIGeneration, email: String, password: String, userId: String,
        nick: String, access: String, refresh: String
    ) {
        self.gateway = gateway
        self.generation = generation
        self.email = email
        self.password = password
        self.userId = userId
        self.nick = nick
        self.accessToken = access
        self.refreshToken = refresh
    }

    /// The sign-up screen: email check, join, then the login the apps do right after. G0 answers `{_id, email,
    /// nick}` and `{_id, token, refreshToken}`, exactly those keys.
    static func signUp(
        _ gateway: GatewayClient, generation: APIGeneration = .g1, nick: String? = nil
    ) async throws -> AppSession {
        let nick = nick ?? TestEnvironment.unique(generation == .g1 ? "app" : "g0app")
        let email = "\(nick)@example.com"
        let password = "password123"
        let check = try await gateway.send(
            "POST", generation.prefix + "/validation/email", json: #"{"email":"\#(email)"}"#)
        #expect(check.status == 200, "\(check.text)")
        let joined = try await gateway.send(
            "POST", generation.join, json: #"{"email":"\#(email)","password":"\#(password)","nick":"\#(nick)"}"#)
        #expect(joined.status == 200, "\(joined.text)")
        let login = try await gateway.send(
            "POST", generation.login, json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        #expect(login.status == 200, "\(login.text)")
        let json = try login.json
        let userId = try #require(json.string(generation.userIdKey))
        if generation == .g0 {
            #expect(try joined.json.keys == ["_id", "email", "nick"])
            #expect(json.keys == ["_id", "token", "refreshToken"])
            #expect(userId == (try joined.json.string("_id")))
        }
        return AppSession(
            gateway: gateway, generation: generation, email: email, password: password, userId: userId,
            nick: json.string("nick") ?? nick, access: try #require(json.string(generation.accessTokenKey)),
            refresh: try #require(json.string("refreshToken")))
    }

    /// An authenticated request (JSON body if given) through the interceptor.
    func send(_ method: String, _ path: String, json: String? = nil) async throws -> GatewayClient.Reply {
        try await intercepted { token in
            try await self.gateway.send(method, path, json: json, headers: ["Authorization": token])
        }
    }

    /// A request with another body (multipart uploads, profile edits) through the interceptor.
    func send(_ method: String, _ path: String, body: Data, contentType: String) async throws -> GatewayClient.Reply {
        try await intercepted { token in
            try await self.gateway.send(
                method, path, body: body, contentType: contentType, headers: ["Authorization": token])
        }
    }

    /// A multipart form (G0 post create/edit, profile edit) through the interceptor.
    func send(_ method: String, _ path: String, form: MultipartForm) async throws -> GatewayClient.Reply {
        try await send(method, path, body: form.finished(), contentType: form.contentType)
    }

    /// `POST /v1/posts/files` with one `files` part per image, as Alamofire builds it.
    func upload(_ images: [[UInt8]]) async throws -> [String] {
        let reply = try await intercepted { token in
            try await self.gateway.upload(
                "/v1/posts/files", field: "files",
                files: images.enumerated().map { ("image\($0.offset)", "image/png", $0.element) },
                headers: ["Authorization": token])
        }
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(APIModels.UploadedFiles.self).files
    }

    /// An image GET the way Kingfisher does it in the apps: `{host}/v1/{path}` (G0: `{base}/{path}`, API
    /// conventions §1.3) with both headers.
    func image(_ path: String) async throws -> GatewayClient.Reply {
        try await intercepted { token in
            try await self.gateway.send("GET", "\(self.generation.prefix)/\(path)", headers: ["Authorization": token])
        }
    }

    private func intercepted(_ request: @Sendable (String) async throws -> GatewayClient.Reply) async throws
        -> GatewayClient.Reply
    {
        let first = try await request(accessToken)
        guard first.status == 419 else { return first }
        let renewed = try await gateway.send(
            "GET", generation.refresh, headers: ["Authorization": accessToken, "Refresh": refreshToken])
        switch renewed.status {
        case 200:
            if generation == .g0 { #expect(try renewed.json.keys == ["token"]) }
            refreshes += 1
            accessToken = try #require(try renewed.json.string(generation.accessTokenKey))
        case 418 where generation == .g1:
            try await logIn()
        default:
            Issue.record("refresh answered \(renewed.status): \(renewed.text)")
            return first
        }
        return try await request(accessToken)
    }

    private func logIn() async throws {
        let login = try await gateway.send(
            "POST", generation.login, json: #"{"email":"\#(email)","password":"\#(password)"}"#)
        #expect(login.status == 200, "\(login.text)")
        logins += 1
        accessToken = try #require(try login.json.string(generation.accessTokenKey))
        refreshToken = try #require(try login.json.string("refreshToken"))
    }

    func renamed(to nick: String) { self.nick = nick }

    // MARK: Time passing (test-side only)

    /// The access token expires: replaced by a token for the same session that expired 100 s ago (signed with
    /// the stack's key, as auth would have issued it earlier).
    func letAccessTokenExpire() async throws {
        accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userId)
    }

    /// The refresh token's 14 days pass: its session's expiry is moved into the past in auth's database.
    func letRefreshTokenExpire() async throws {
        try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
    }
}

extension AppSession {
    /// The `sid` claim of a JWT, read without verifying it (the token may have expired).
    static func sessionId(in token: String) -> String? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        guard let data = Data(base64Encoded: payload),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return claims["sid"] as? String
    }
}

/// The entries of a `{data: [...]}` answer (a page or a list), typed: `items(page, as: APIModels.Post.self)`.
/// Throws when the answer is no such list; a test that waits for one reads it with `try?`.
func items<Item: Decodable & Sendable>(_ reply: GatewayClient.Reply, as item: Item.Type) throws -> [Item] {
    try reply.decode(APIModels.DataList<Item>.self).data
}

/// Reads `{data: [...]}` loosely, for the entries' raw key sets (BestMomentG0JourneyTests) and G0ContractTests;
/// values are read typed with `items(_:as:)`.
func items(_ reply: GatewayClient.Reply) -> [[String: Any]] {
    ((try? reply.json["data"] as? [[String: Any]]) ?? nil) ?? []
}
