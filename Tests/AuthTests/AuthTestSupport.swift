import AuthService
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SNSPlatform
import SNSTestSupport
import Testing

/// The media path-signing key the in-process auth service checks profile images with (tests issue paths
/// with it, as the media service would).
let authTestMediaSigningKey = "auth-tests-media-signing-key-0123456789abcdef"

/// Runs an in-process auth service (real PostgreSQL, real broker) and hands a client to `body`.
func withAuthService(
    accessTokenTTL: Duration = .seconds(600), refreshTokenTTL: Duration = .seconds(3600),
    federation: FederationConfiguration = FederationConfiguration(),
    _ body: @Sendable (AuthClient) async throws -> Void
) async throws {
    let configuration = AuthConfiguration(
        platform: try TestEnvironment.platformConfiguration(serviceName: "auth"),
        jwtPrivateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM(), mediaSigningKey: authTestMediaSigningKey,
        accessTokenTTL: accessTokenTTL, refreshTokenTTL: refreshTokenTTL, bcryptCost: 4, passwordMinLength: 8,
        federation: federation)
    let app = try await buildApplication(configuration: configuration, logger: TestEnvironment.logger)
    let apiKey = try TestEnvironment.apiKey()
    try await app.test(.router) { client in
        try await body(AuthClient(client: client, apiKey: apiKey))
    }
}

/// A thin client that speaks like the iOS apps: `SesacKey` on every request, bare token in `Authorization`.
struct AuthClient: Sendable {
    let client: any TestClientProtocol
    let apiKey: String

    typealias Reply = TestReply

    func send(
        _ method: HTTPRequest.Method, _ path: String, json: String? = nil, headers extra: [String: String] = [:],
        apiKey: String?? = .none
    ) async throws -> Reply {
        try await client.send(
            AppRequest(method, path, apiKey: AppRequest.key(apiKey, default: self.apiKey), json: json, headers: extra))
    }

    func join(email: String, password: String = "password123", nick: String, extra: String = "") async throws -> Reply {
        try await send(
            .post, "/v1/users/join",
            json: #"{"email":"\#(email)","password":"\#(password)","nick":"\#(nick)"\#(extra)}"#)
    }

    func login(email: String, password: String = "password123") async throws -> Reply {
        try await send(.post, "/v1/users/login", json: #"{"email":"\#(email)","password":"\#(password)"}"#)
    }

    /// `PUT /internal/v1/profile`, as the social service calls it: the user's own token and `SesacKey`.
    func updateProfile(_ json: String, token: String?, apiKey: String?? = .none) async throws -> Reply {
        try await send(
            .put, "/internal/v1/profile", json: json, headers: token.map { ["Authorization": $0] } ?? [:],
            apiKey: apiKey)
    }

    /// Joins and logs in a fresh user; returns (user_id, accessToken, refreshToken, email, nick).
    func freshUser() async throws -> (userId: String, access: String, refresh: String, email: String, nick: String) {
        let name = TestEnvironment.unique("u")
        let email = "\(name)@example.com"
        let joined = try await join(email: email, nick: name)
        #expect(joined.status == 200, "join: \(joined.text)")
        let login = try await self.login(email: email)
        #expect(login.status == 200, "login: \(login.text)")
        let json = try login.json
        return (
            json.string("user_id") ?? "", json.string("accessToken") ?? "", json.string("refreshToken") ?? "", email,
            name
        )
    }
}

/// Signs access tokens with the test key, for expiry scenarios that must not depend on waiting.
func signAccessToken(userId: String, sessionId: String?, expiresIn seconds: TimeInterval) async throws -> String {
    let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())
    let now = Date()
    return try await signer.sign(
        AccessTokenClaims(
            userId: userId, sessionId: sessionId, issuedAt: now.addingTimeInterval(-3600),
            expiresAt: now.addingTimeInterval(seconds)))
}

/// The session id inside an access token (its `sid` claim), read without verification.
func sessionId(of token: String) throws -> String? {
    let parts = token.split(separator: ".")
    guard parts.count == 3 else { return nil }
    var base64 = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    guard let data = Data(base64Encoded: base64) else { return nil }
    return try JSONObject(Array(data)).string("sid")
}

/// A profile-image path as the media service would issue it to `owner` (same signing key as the service under test).
func issuedImagePath(to owner: String, kind: MediaPath.Kind = .profiles, fileExtension: String = "jpg") throws -> String
{
    try MediaPathSigner(secret: authTestMediaSigningKey).issue(kind: kind, fileExtension: fileExtension, owner: owner)
        .string
}
