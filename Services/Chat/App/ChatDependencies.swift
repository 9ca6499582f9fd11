import PostgresNIO
import SNSPlatform

/// What the chat use cases share.
struct ChatDependencies: Sendable {
    let store: ChatStore
    let outbox: Outbox
    let postgres: DatabasePool
    /// Checks that a message's files were stored by our media service for its sender.
    let mediaSigner: MediaPathSigner
    let historyLimit: Int
}
