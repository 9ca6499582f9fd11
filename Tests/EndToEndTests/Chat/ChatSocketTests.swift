import Foundation
import SNSTestSupport
import Testing

/// Chat's Socket.IO delivery with a real client nobody here wrote: python-socketio (PyPI, installed by `./sns test`),
/// driven by `socketio_client.py`. It connects through the gateway, joins `/chats-{room_id}`, then posts over REST
/// to each chat replica directly in turn (the stack runs two), so every run has messages posted to the replica that
/// does not hold the socket; each must arrive as one `chat` event.
@Suite("Chat over Socket.IO (python-socketio through the gateway)")
struct ChatSocketTests {
    struct Account {
        let userId: String
        let token: String
    }

    let gateway: GatewayClient
    let apiKey: String

    init() throws {
        gateway = try GatewayClient()
        apiKey = try TestEnvironment.apiKey()
    }

    func signUp() async throws -> Account {
        let nick = TestEnvironment.unique("cs")
        let joined = try await gateway.send(
            "POST", "/v1/users/join",
            json: #"{"email":"\#(nick)@example.com","password":"password123","nick":"\#(nick)"}"#)
        #expect(joined.status == 200, "\(joined.text)")
        let login = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"\#(nick)@example.com","password":"password123"}"#)
        return Account(
            userId: try #require(try login.json.string("user_id")),
            token: try #require(try login.json.string("accessToken")))
    }

    func room(_ me: Account, with you: Account) async throws -> String {
        let opened = try await gateway.send(
            "POST", "/v1/chats", json: #"{"opponent_id":"\#(you.userId)"}"#, headers: ["Authorization": me.token])
        #expect(opened.status == 200, "\(opened.text)")
        return try #require(try opened.json.string("room_id"))
    }

    /// The chat replicas' own URLs (`SNS_TEST_CHAT_URLS`).
    func replicas() throws -> [String] {
        let urls = (ProcessInfo.processInfo.environment["SNS_TEST_CHAT_URLS"] ?? "").split(separator: ",").map(
            String.init)
        try #require(urls.count >= 2, "the test stack runs two chat replicas (SNS_TEST_CHAT_URLS: \(urls))")
        return urls
    }

    func client(_ config: [String: Any]) async throws -> SocketIOTestClient.Outcome {
        try await SocketIOTestClient.run(config)
    }

    func config(
        room: String, transports: [String], headers: [String: String] = [:], posts: [(String, Account)] = [],
        files: [String] = []
    ) throws -> [String: Any] {
        [
            "url": try TestEnvironment.gatewayURL(), "room": room, "transports": transports, "headers": headers,
            "rest": posts.map { ["url": $0.0, "token": $0.1.token, "key": apiKey] }, "messages": posts.count,
            "timeout": 30, "files": files,
        ]
    }

    func expectDelivered(_ outcome: SocketIOTestClient.Outcome, room: String, transport: String) {
        #expect(outcome.refusal == nil, "\(String(describing: outcome.refusal))")
        #expect(outcome.transport == transport)
        #expect(outcome.events.compactMap { $0["chat_id"]?.string } == outcome.posted, "each message once, in order")
        for event in outcome.events {
            #expect(Set(event.keys) == ["chat_id", "room_id", "content", "createdAt", "sender", "files"])
            #expect(event["room_id"]?.string == room)
        }
    }

    /// BuyOrNot: no headers on the socket, polling first, then the upgrade to WebSocket.
    @Test func pollingThenWebSocketWithoutHeadersReceivesMessagesPostedToEitherReplica() async throws {
        let (me, you) = (try await signUp(), try await signUp())
        let room = try await room(me, with: you)
        let urls = try replicas()
        let outcome = try await client(
            config(
                room: room, transports: ["polling", "websocket"],
                posts: [(urls[0], me), (urls[1], you), (urls[0], you), (urls[1], me)]))
        expectDelivered(outcome, room: room, transport: "websocket")
    }

    /// WeeMo: `SesacKey` and `Authorization` of a participant on the socket, WebSocket only.
    @Test func webSocketOnlyWithAParticipantsTokenReceivesMessages() async throws {
        let (me, you) = (try await signUp(), try await signUp())
        let room = try await room(me, with: you)
        let urls = try replicas()
        let outcome = try await client(
            config(
                room: room, transports: ["websocket"], headers: ["SesacKey": apiKey, "Authorization": you.token],
                posts: [(urls[1], me), (urls[0], me), (try TestEnvironment.gatewayURL(), you)]))
        expectDelivered(outcome, room: room, transport: "websocket")
    }

    /// WeeMo (G2, decision 0021): `ProductId` on the socket too; its messages carry G2's slashed paths, whichever
    /// replica the message was posted to (and over REST without a slash, as G1 clients send them).
    @Test func aG2SocketReceivesMessagesWithG2Paths() async throws {
        let (me, you) = (try await signUp(), try await signUp())
        let room = try await room(me, with: you)
        let uploaded = try await gateway.upload(
            "/v1/chats/\(room)/files", field: "files", files: [("image_0.png", "image/png", TestImages.png)],
            headers: ["Authorization": me.token])
        let path = try #require(try uploaded.decode(APIModels.UploadedFiles.self).files.first)
        #expect(!path.hasPrefix("/"), "a G1 upload answers G1's path")
        let urls = try replicas()
        let outcome = try await client(
            config(
                room: room, transports: ["polling", "websocket"],
                headers: ["SeSACKey": apiKey, "ProductId": TestEnvironment.productId, "Authorization": you.token],
                posts: [(urls[0], me), (urls[1], me)], files: [path]))
        expectDelivered(outcome, room: room, transport: "websocket")
        #expect(outcome.events.map { $0["files"] } == Array(repeating: .array([.string("/" + path)]), count: 2))
    }

    /// BuyOrNot's socket asks for permessage-deflate (SocketIO-Client-Swift's `.compress`), which python-socketio
    /// cannot: a client of our own on wsproto (`deflate_socket_client.py`) offers it through the gateway, and the
    /// messages posted to either replica arrive compressed (fewer bytes on the wire than the text they decode to).
    @Test func aWebSocketThatOffersPerMessageDeflateGetsCompressedMessages() async throws {
        struct Outcome: Decodable {
            var extensions: [String]
            var joined: Bool
            var refusal: String?
            var posted: [String]
            var events: [[String: JSONValue]]
            var wire_bytes: Int
            var text_bytes: Int
        }
        let (me, you) = (try await signUp(), try await signUp())
        let room = try await room(me, with: you)
        let urls = try replicas()
        let output = try await SocketIOTestClient.runScript(
            "deflate_socket_client.py",
            [
                "url": try TestEnvironment.gatewayURL(), "room": room, "messages": 2, "timeout": 30,
                "rest": [urls[0], urls[1]].map { ["url": $0, "token": me.token, "key": apiKey] },
            ])
        let outcome = try JSONDecoder().decode(Outcome.self, from: output)
        #expect(outcome.refusal == nil, "\(String(describing: outcome.refusal))")
        #expect(outcome.extensions == ["permessage-deflate"])
        #expect(outcome.joined)
        #expect(outcome.events.compactMap { $0["chat_id"]?.string } == outcome.posted, "each message once, in order")
        #expect(outcome.events.count == 2)
        #expect(
            outcome.wire_bytes < outcome.text_bytes,
            "compressed: \(outcome.wire_bytes) bytes on the wire for \(outcome.text_bytes) of text")
    }

    @Test func pollingOnlyReceivesMessages() async throws {
        let (me, you) = (try await signUp(), try await signUp())
        let room = try await room(me, with: you)
        let urls = try replicas()
        let outcome = try await client(
            config(room: room, transports: ["polling"], posts: [(urls[0], me), (urls[1], you)]))
        expectDelivered(outcome, room: room, transport: "polling")
    }

    /// Refused per namespace with the original server's messages: not a participant, an unknown room, a bad token,
    /// a wrong key.
    @Test func aNamespaceIsRefusedForStrangersUnknownRoomsAndBadCredentials() async throws {
        let (me, you, stranger) = (try await signUp(), try await signUp(), try await signUp())
        let room = try await room(me, with: you)
        let cases: [(String, [String: String], String)] = [
            (room, ["SesacKey": apiKey, "Authorization": stranger.token], "채팅방 참여자가 아닙니다."),
            ("000000000000000000000000", [:], "채팅방을 찾을 수 없습니다."),
            (room, ["Authorization": "not-a-token"], "인증할 수 없는 엑세스 토큰입니다."),
            (room, ["SesacKey": "wrong-key"], "This service sesac_memolease only"),
            (room, ["ProductId": "not-registered"], "서비스 식별자(ProductId)를 찾을 수 없습니다. (unknown ProductId)"),
        ]
        for (target, headers, message) in cases {
            let outcome = try await client(config(room: target, transports: ["polling"], headers: headers))
            #expect(outcome.refusal?.message == message, "\(headers.keys.sorted())")
            #expect(outcome.transport == nil)
        }
    }
}
