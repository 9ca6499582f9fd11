import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PostgresNIO
import SNSKafka
import SNSPlatform
import SNSTestSupport
import Testing

@testable import SocialService

/// Runs an in-process social service and hands a client to `body`. By default it shares the schema `social`
/// with the stack's social process, which projects the events (tests use their own users and products); a
/// private schema gets its own consumer group, which projects every event of the broker from the beginning
/// into it (the rebuild test). Profile edits call the test stack's real auth and media processes.
func withSocialService(schema: String = "social", _ body: @Sendable (SocialClient) async throws -> Void) async throws {
    try await TestPlatform.with { platform in
        var configuration = SocialConfiguration(
            platform: try TestEnvironment.platformConfiguration(serviceName: "social"),
            authURL: try TestEnvironment.authURL(), mediaURL: try TestEnvironment.mediaURL(),
            // As the stack's social (deploy/local/lib.sh, test profile): auth's profile write waits for the
            // projections of its event, up to 50 s on a machine the suite saturates, and must not be cut off first.
            internalTimeout: .seconds(58), schema: schema)
        // On the shared schema the stack's social process projects the events; a private schema needs its own consumer.
        configuration.consumesEvents = schema != "social"
        let settings = configuration
        let app = try await buildApplication(configuration: settings, logger: TestEnvironment.logger)
        let apiKey = try TestEnvironment.apiKey()
        let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())
        try await app.test(.router) { client in
            try await body(
                SocialClient(
                    client: client, apiKey: apiKey, signer: signer, platform: platform,
                    schema: try SQLIdentifier(schema)))
        }
    }
}

struct SocialClient: Sendable {
    let client: any TestClientProtocol
    let apiKey: String
    let signer: AccessTokenSigner
    let platform: TestPlatform
    let schema: SQLIdentifier

    typealias Reply = TestReply

    func send(
        _ method: HTTPRequest.Method, _ path: String, as user: TestUser?, body: ByteBuffer? = nil,
        contentType: String? = nil, apiKey: String?? = .none
    ) async throws -> Reply {
        try await client.send(
            AppRequest(
                method, path, apiKey: AppRequest.key(apiKey, default: self.apiKey), token: user?.token,
                body: body.map { Array(buffer: $0) }, contentType: contentType))
    }

    /// A user known only through a published `user-registered` (no account in auth); waits for the projection.
    func user(nick: String? = nil) async throws -> TestUser {
        let userId = ObjectID.generate()
        let nick = nick ?? TestEnvironment.unique("n")
        try await waitProcessed(
            try await publish(
                UserRegistered(
                    userId: userId, email: "\(nick)@example.com", nick: nick, phoneNum: nil, birthDay: nil,
                    profileImage: nil,
                    registeredAt: Date()), key: userId))
        let now = Date()
        let token = try await signer.sign(
            AccessTokenClaims(userId: userId, sessionId: nil, issuedAt: now, expiresAt: now.addingTimeInterval(600)))
        return TestUser(userId: userId, nick: nick, token: token)
    }

    /// A real account: joined and logged in through the gateway (auth process), projected here.
    func account() async throws -> TestUser {
        let gateway = try GatewayClient()
        let nick = TestEnvironment.unique("a")
        let joined = try await gateway.send(
            "POST", "/v1/users/join",
            json: #"{"email":"\#(nick)@example.com","password":"password123","nick":"\#(nick)"}"#)
        #expect(joined.status == 200, "\(joined.text)")
        let login = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"\#(nick)@example.com","password":"password123"}"#)
        let json = try login.json
        let user = TestUser(userId: json.string("user_id") ?? "", nick: nick, token: json.string("accessToken") ?? "")
        try await eventually("\(nick) projected") {
            try await count("SELECT count(*)::int FROM \(table: schema, "users") WHERE user_id = \(user.userId)") == 1
        }
        return user
    }

    @discardableResult
    func publish<P: EventPayload>(_ payload: P, key: String) async throws -> UUID {
        try await platform.publish(payload, key: key, producerName: "social-tests")
    }

    func waitProcessed(_ eventId: UUID) async throws {
        try await eventually("event \(eventId) processed") {
            try await count(
                "SELECT count(*)::int FROM \(table: schema, "processed_events") WHERE event_id = \(eventId)") >= 1
        }
    }

    func count(_ query: PostgresQuery) async throws -> Int {
        for try await value in try await platform.postgres.query(query, logger: TestEnvironment.logger).decode(Int.self)
        { return value }
        return 0
    }
}

extension TestReply {
    /// A list's entries, loosely (for key-set checks).
    var data: [[String: Any]] { (try? json["data"] as? [[String: Any]]) ?? [] }
}
