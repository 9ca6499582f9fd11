import Hummingbird
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

    let router = platform.makeRouter()
    let api = router.group("v1").add(
        middleware: AuthenticationMiddleware(verifier: platform.verifier) { user in
            try await store.isActive(userId: user.userId, logger: logger)
        })
    let chats = ChatHandlers(rooms: Rooms(deps: deps), messages: Messages(deps: deps))
    api.post("chats", use: chats.open)
    api.get("chats", use: chats.list)
    api.get("chats/:room_id", use: chats.history)
    api.post("chats/:room_id", use: chats.send)

    let users = try platform.makeConsumer(
        SystemCatalog.chat.consumers[0], of: SystemCatalog.chat, handler: ChatUsersProjection(schema: schema))
    return platform.makeApplication(router: router, consumers: configuration.consumesEvents ? [users] : [])
}
