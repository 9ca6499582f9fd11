import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// Keeps the market's read model of posts (price, title, seller) and of withdrawn users, inside the idempotent
/// consumer's transaction. Converges under repetition and reordering: a newer snapshot (`updated_at`) wins, a
/// deletion is a tombstone no snapshot can undo, a withdrawal is permanent.
struct ProductReadModelHandler: EventHandler {
    let schema: SQLIdentifier

    static let topics = [Topic.posts, Topic.users]

    func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws {
        let s = schema
        switch event.eventType {
        case .postCreated:
            try await upsert(try event.payload(as: PostCreated.self).post, connection: connection, logger: logger)
        case .postUpdated:
            try await upsert(try event.payload(as: PostUpdated.self).post, connection: connection, logger: logger)
        case .postDeleted:
            let deleted = try event.payload(as: PostDeleted.self)
            try await connection.query("""
                INSERT INTO \(table: s, "products") (post_id, seller_id, product_id, updated_at, deleted_at)
                VALUES (\(deleted.postId), \(deleted.userId), \(deleted.productId), \(deleted.deletedAt), \(deleted.deletedAt))
                ON CONFLICT (post_id) DO UPDATE
                SET deleted_at = coalesce(\(table: s, "products").deleted_at, EXCLUDED.deleted_at)
                """, logger: logger)
        case .userWithdrawn:
            let user = try event.payload(as: UserWithdrawn.self)
            try await connection.query("""
                INSERT INTO \(table: s, "withdrawn_users") (user_id, withdrawn_at) VALUES (\(user.userId), \(user.withdrawnAt))
                ON CONFLICT (user_id) DO NOTHING
                """, logger: logger)
        default:
            return
        }
    }

    private func upsert(_ post: PostSnapshot, connection: PostgresConnection, logger: Logger) async throws {
        let s = schema
        try await connection.query("""
            INSERT INTO \(table: s, "products") (post_id, seller_id, product_id, title, price, updated_at)
            VALUES (\(post.postId), \(post.userId), \(post.productId), \(post.title), \(post.price), \(post.updatedAt))
            ON CONFLICT (post_id) DO UPDATE
            SET seller_id = EXCLUDED.seller_id, product_id = EXCLUDED.product_id, title = EXCLUDED.title,
                price = EXCLUDED.price, updated_at = EXCLUDED.updated_at
            WHERE \(table: s, "products").deleted_at IS NULL AND \(table: s, "products").updated_at <= EXCLUDED.updated_at
            """, logger: logger)
    }
}
