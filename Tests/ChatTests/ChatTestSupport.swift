import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import ChatService

/// The in-process service's path-signing key: tests issue files "stored by media" with it.
let testMediaSigningKey = "chat-tests-media-signing-key-0123456789"

/// Runs an in-process chat service on the schema `chat`, shared with the stack's chat process, which projects the
/// user events (tests use their own users).
func withChatService(_ body: @Sendable (ChatClient) async throws -> Void) async throws {
    try await TestPlatform.with { platform in
        var configuration = ChatConfiguration(
            platform: try TestEnvironment.platformConfiguration(serviceName: "chat"),
            mediaSigningKey: testMediaSigningKey)
        configuration.consumesEvents = false
        let settings = configuration
        let app = try await buildApplication(configuration: settings, logger: TestEnvironment.logger)
        let apiKey = try TestEnvironment.apiKey()
        let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())
        try await app.test(.router) { client in
            try await body(ChatClient(client: client, apiKey: apiKey, signer: signer, platform: platform))
        }
    }
}

struct ChatClient: Sendable {
    let client: any TestClientProtocol
    let apiKey: String
    let signer: AccessTokenSigner
    let platform: TestPlatform
    let schema = try! SQLIdentifier("chat")

    func send(
        _ method: HTTPRequest.Method, _ path: String, as user: TestUser?, json: String? = nil, apiKey: String?? = .none
    ) async throws -> TestReply {
        try await client.send(
            AppRequest(
                method, path, apiKey: AppRequest.key(apiKey, default: self.apiKey), token: user?.token,
                body: json.map { Array($0.utf8) }, contentType: json == nil ? nil : "application/json"))
    }

    /// A user known only through a published `user-registered`, projected by the stack's chat process.
    func user(nick: String? = nil, image: String? = nil) async throws -> TestUser {
        let userId = ObjectID.generate()
        let nick = nick ?? TestEnvironment.unique("c")
        try await waitProcessed(
            try await platform.publish(
                UserRegistered(
                    userId: userId, email: "\(nick)@example.com", nick: nick, phoneNum: nil, birthDay: nil,
                    profileImage: image, registeredAt: Date()), key: userId, producerName: "chat-tests"))
        let now = Date()
        let token = try await signer.sign(
            AccessTokenClaims(userId: userId, sessionId: nil, issuedAt: now, expiresAt: now.addingTimeInterval(600)))
        return TestUser(userId: userId, nick: nick, token: token)
    }

    func withdraw(_ user: TestUser) async throws {
        try await waitProcessed(
            try await platform.publish(
                UserWithdrawn(userId: user.userId, withdrawnAt: Date()), key: user.userId,
                producerName: "chat-tests"))
    }

    func waitProcessed(_ eventId: UUID) async throws {
        try await eventually("event \(eventId) processed by chat") {
            try await count(
                "SELECT count(*)::int FROM \(table: schema, "processed_events") WHERE event_id = \(eventId)") >= 1
        }
    }

    func count(_ query: PostgresQuery) async throws -> Int {
        for try await value in try await platform.postgres.query(query, logger: TestEnvironment.logger).decode(Int.self)
        { return value }
        return 0
    }

    /// Opens (or finds) the room of `user` and `opponent`; its id.
    func room(_ user: TestUser, with opponent: TestUser) async throws -> String {
        let reply = try await send(.post, "/v1/chats", as: user, json: #"{"opponent_id":"\#(opponent.userId)"}"#)
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(APIModels.ChatRoom.self).roomId
    }

    func say(_ content: String, in room: String, as user: TestUser) async throws -> APIModels.Chat {
        let reply = try await send(
            .post, "/v1/chats/\(room)", as: user, json: #"{"content":\#(APIError.jsonString(content)),"files":[]}"#)
        #expect(reply.status == 200, "\(reply.text)")
        return try reply.decode(APIModels.Chat.self)
    }
}
