import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// Keeps the market's read model of posts (price, title, seller) and of withdrawn users, inside the idempotent
/// consumer's transaction. Converges under repetition and reordering: a newer snapshot (`updated_at`) wins, a
/// deletion is a tombstone no snapshot can undo, a withdrawal is permanent.
struct ProductsProjection: EventHandler {
    let schema: SQLIdentifier

    /// The types `handle` acts on; the others are left alone, without a transaction (`EventHandler.handles`).
    func handles(_ type: EventType) -> Bool {
        switch type {
        case .userWithdrawn, .postCreated, .postUpdated, .postDeleted: true
        case .userRegistered, .userUpdated, .commentCreated, .commentDeleted, .postLiked, .postUnliked,
            .userFollowed, .userUnfollowed, .purchaseCompleted, .mediaStored, .chatMessageSent:
            false
        }
    }

    func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws {
        let s = schema
        switch event.eventType {
        case .postCreated:
            try await upsert(try event.payload(as: PostCreated.self).post, connection: connection, logger: logger)
        case .postUpdated:
            try await upsert(try event.payload(as: PostUpdated.self).post, connection: connection, logger: logger)
        case .postDeleted:
            let deleted = try event.payload(as: PostDeleted.self)
            try await connection.query(
                """
                INSERT INTO \(table: s, "products") (post_id, seller_id, product_id, updated_at, deleted_at)
                VALUES (\(deleted.postId), \(deleted.userId), \(deleted.productId), \(deleted.deletedAt), \(deleted.deletedAt))
                ON CONFLICT (post_id) DO UPDATE
                SET deleted_at = coalesce(\(table: s, "products").deleted_at, EXCLUDED.deleted_at)
                """, logger: logger)
        case .userWithdrawn:
            let user = try event.payload(as: UserWithdrawn.self)
            try await connection.query(
                """
                INSERT INTO \(table: s, "withdrawn_users") (user_id, withdrawn_at) VALUES (\(user.userId), \(user.withdrawnAt))
                ON CONFLICT (user_id) DO NOTHING
                """, logger: logger)
        default:
            return
        }
    }

    /// A post snapshot is one statement, which the consumer runs together with the event's record.
    func oneStatement(for event: IncomingEvent) throws -> (any OneStatementEffect)? {
        switch event.eventType {
        case .postCreated: UpsertProducts(posts: [try event.payload(as: PostCreated.self).post])
        case .postUpdated: UpsertProducts(posts: [try event.payload(as: PostUpdated.self).post])
        default: nil
        }
    }

    /// A batch: runs of distinct posts' snapshots (`PostSnapshotRuns`) in one statement each, every other event one
    /// by one, in order — the same rows as one by one.
    func handle(batch events: [IncomingEvent], connection: PostgresConnection, logger: Logger) async throws {
        try await PostSnapshotRuns.apply(
            events, run: { try await upsert($0, connection: connection, logger: logger) },
            other: { try await handle($0, connection: connection, logger: logger) })
    }

    /// Snapshots of distinct posts (one or a run) in one statement.
    private func upsert(_ posts: [PostSnapshot], connection: PostgresConnection, logger: Logger) async throws {
        guard !posts.isEmpty else { return }
        for try await _ in try await connection.execute(UpsertProducts(posts: posts), logger: logger) {}
    }

    private func upsert(_ post: PostSnapshot, connection: PostgresConnection, logger: Logger) async throws {
        try await upsert([post], connection: connection, logger: logger)
    }
}
