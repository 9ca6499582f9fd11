import Hummingbird
import HummingbirdCore
import HummingbirdWSCompression
import HummingbirdWebSocket
import Logging
import SNSPlatform

/// Builds the chat service: one-to-one rooms and their messages (decision 0020), with a projection of user events
/// for participants' nicks and images and for withdrawals. Each message is published as `chat-message-sent`.
package func buildApplication(configuration: ChatConfiguration, logger: Logger) async throws
    -> some ApplicationProtocol
{
    let schema = try SQLIdentifier(configuration.schema)
    let platform = try await ServicePlatform(
        configuration: configuration.platform, schema: schema.name, migrations: ChatMigrations.all(schema: schema),
        logger: logger)
    let store = ChatStore(client: platform.postgres, schema: schema)
    let deps = ChatDependencies(
        store: store, outbox: platform.outbox, postgres: platform.postgres,
        mediaSigner: try MediaPathSigner(secret: configuration.mediaSigningKey),
        historyLimit: configuration.historyLimit)

    // Socket.IO (decision 0020): the apps' client sends no SesacKey on its socket; the namespaces are authorised
    // by `SocketAuthorizer`.
    let hub = RealtimeHub(
        settings: configuration.realtime,
        authorizer: SocketAuthorizer(
            store: store, verifier: platform.verifier, apiKey: configuration.platform.apiKey,
            productIds: configuration.platform.productIds, logger: logger),
        logger: logger)
    let transports = EngineTransports(hub: hub)
    let router = platform.makeRouter(sesacKeyExemptPaths: [EngineTransports.path, "/socket.io"])
    router.get("socket.io", use: transports.poll)
    router.post("socket.io", use: transports.deliver)
    platform.drain.onDrain { await hub.closeAll() }
    let api = router.group("v1").add(
        middleware: AuthenticationMiddleware(verifier: platform.verifier) { user in
            try await store.isActive(userId: user.userId, logger: logger)
        })
    let messages = Messages(deps: deps)
    let media = MediaClient(
        mediaURL: configuration.mediaURL, apiKey: configuration.platform.apiKey, timeout: configuration.internalTimeout)
    let chats = ChatHandlers(
        rooms: Rooms(deps: deps), messages: messages, files: ChatFiles(deps: deps, media: media, messages: messages))
    api.post("chats", use: chats.open)
    api.get("chats", use: chats.list)
    api.get("chats/:room_id", use: chats.history)
    api.post("chats/:room_id", use: chats.send)
    api.post("chats/:room_id/files", use: chats.upload)

    let users = try platform.makeConsumer(
        SystemCatalog.chat.consumers[0], of: SystemCatalog.chat, handler: ChatUsersProjection(schema: schema))
    let fanOut = ChatFanOut(
        hub: hub, kafka: ServicePlatform.kafkaConfiguration(configuration.platform, role: "sockets"), logger: logger)
    // BuyOrNot's client asks for permessage-deflate (`.compress`).
    let server = HTTPServerBuilder.http1WebSocketUpgrade(
        configuration: .init(ws: .init(maxFrameSize: 1 << 20, extensions: [.perMessageDeflate()], autoPing: .disabled))
    ) { request, _, _ in await transports.webSocket(request) }
    return platform.makeApplication(
        router: router, consumers: configuration.consumesEvents ? [users] : [], extraServices: [fanOut],
        server: server)
}
