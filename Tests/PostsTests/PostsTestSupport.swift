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

@testable import PostsService

/// The media path-signing key of in-process posts tests (the running stack has its own).
let testMediaSigningKey = "posts-tests-media-signing-key-0123456789"

/// Runs an in-process posts service (real PostgreSQL, real broker) and hands a client to `body`. User
/// events are published to the real broker and reach the service's read model through a consumer: by default the
/// stack's posts process, which shares the schema `posts`; on a private schema (e.g. `TestEnvironment.unique("posts_")`)
/// the service's own, in a consumer group of its own that projects every event of the broker from the beginning.
func withPostsService(
    schema: String = "posts", configure: @Sendable (inout PostsConfiguration) -> Void = { _ in },
    _ body: @Sendable (PostsClient) async throws -> Void
) async throws {
    try await TestPlatform.with { platform in
        var configuration = PostsConfiguration(
            platform: try TestEnvironment.platformConfiguration(serviceName: "posts"),
            mediaSigningKey: testMediaSigningKey)
        configuration.schema = schema
        configuration.consumesEvents = schema != "posts"
        configure(&configuration)
        let settings = configuration
        let app = try await buildApplication(configuration: settings, logger: TestEnvironment.logger)
        let apiKey = try TestEnvironment.apiKey()
        let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())
        try await app.test(.router) { client in
            try await body(
                PostsClient(
                    client: client, apiKey: apiKey, signer: signer, platform: platform,
                    media: try MediaPathSigner(secret: testMediaSigningKey), schema: try SQLIdentifier(schema)))
        }
    }
}

/// Speaks like the iOS apps: `SesacKey` on every request, the bare access token in `Authorization`.
struct PostsClient: Sendable {
    let client: any TestClientProtocol
    let apiKey: String
    let signer: AccessTokenSigner
    let platform: TestPlatform
    let media: MediaPathSigner
    /// The posts service's schema (`posts`, or a test's private one).
    let schema: SQLIdentifier

    typealias Reply = TestReply

    func send(
        _ method: HTTPRequest.Method, _ path: String, as user: TestUser?, json: String? = nil,
        token: String? = nil, apiKey: String?? = .none, productId: String? = nil
    ) async throws -> Reply {
        try await client.send(
            AppRequest(
                method, path, apiKey: AppRequest.key(apiKey, default: self.apiKey), token: token ?? user?.token,
                json: json, headers: productId.map { ["ProductId": $0] } ?? [:]))
    }

    /// A request as a G2 app sends it: `ProductId` (the test stack's registered app) on top of the usual headers.
    func g2(_ method: HTTPRequest.Method, _ path: String, as user: TestUser?, json: String? = nil) async throws -> Reply
    {
        try await send(method, path, as: user, json: json, productId: TestEnvironment.productId)
    }

    /// A registered user: `user-registered` goes through the broker; returns once the read model has it.
    func user(nick: String? = nil) async throws -> TestUser {
        let userId = ObjectID.generate()
        let nick = nick ?? TestEnvironment.unique("n")
        try await publish(
            UserRegistered(
                userId: userId, email: "\(nick)@example.com", nick: nick, phoneNum: nil, birthDay: nil,
                profileImage: nil, registeredAt: Date()), key: userId)
        try await eventually("read model has \(nick)") { try await nickInReadModel(userId) == nick }
        return TestUser(userId: userId, nick: nick, token: try await token(for: userId))
    }

    func token(for userId: String, expiresIn seconds: TimeInterval = 600) async throws -> String {
        let now = Date()
        return try await signer.sign(
            AccessTokenClaims(
                userId: userId, sessionId: nil, issuedAt: now.addingTimeInterval(-1),
                expiresAt: now.addingTimeInterval(seconds)))
    }

    /// Publishes an event the way another service's outbox relay would.
    @discardableResult
    func publish<P: EventPayload>(_ payload: P, key: String) async throws -> UUID {
        try await platform.publish(payload, key: key, producerName: "posts-tests")
    }

    /// Waits until the posts consumer has applied (or skipped) the event.
    func waitProcessed(_ eventId: UUID) async throws {
        try await eventually("event \(eventId) processed") {
            try await sql(
                "SELECT count(*)::int FROM \(table: schema, "processed_events") WHERE event_id = \(eventId)", Int.self)
                == [
                    1
                ]
        }
    }

    func nickInReadModel(_ userId: String) async throws -> String? {
        let rows = try await platform.postgres.query(
            "SELECT nick FROM \(table: schema, "users") WHERE user_id = \(userId)", logger: TestEnvironment.logger)
        for try await nick in rows.decode(String.self) { return nick }
        return nil
    }

    func sql<T: Sendable>(_ query: PostgresQuery, _ type: T.Type) async throws -> [T] where T: PostgresDecodable {
        var result: [T] = []
        for try await value in try await platform.postgres.query(query, logger: TestEnvironment.logger).decode(T.self) {
            result.append(value)
        }
        return result
    }

    /// A file path the media service would have issued to `user`.
    func file(for user: TestUser, ext: String = "jpg") -> String {
        media.issue(kind: .posts, fileExtension: ext, owner: user.userId).string
    }

    /// Creates a post; returns its JSON.
    func createPost(as user: TestUser, _ json: String) async throws -> JSONObject {
        let reply = try await send(.post, "/v1/posts", as: user, json: json)
        #expect(reply.status == 200, "create: \(reply.text)")
        return try reply.json
    }
}

extension TestReply {
    /// A page's posts, loosely (for key-set checks); `page` reads them typed.
    var posts: [[String: Any]] { (try? json["data"] as? [[String: Any]]) ?? [] }
    var page: APIModels.PostPage { get throws { try decode() } }
    var postIds: [String] { ((try? page)?.data ?? []).map(\.postId) }
    var nextCursor: String? { try? page.nextCursor }
}
