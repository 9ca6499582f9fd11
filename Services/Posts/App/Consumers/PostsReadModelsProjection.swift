import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// Keeps this service's read models of other services' data, inside the idempotent consumer's transaction:
/// - users (`sns.users`): creator nick and profile image; withdrawn users' posts, comments and likes vanish;
/// - follows (`sns.follows`): the following feed;
/// - purchases (`sns.payments`): a post's `buyers`.
/// Every effect is an upsert or a delete, so applying an event again (replay) changes nothing.
struct PostsReadModelsProjection: EventHandler {
    /// The types `handle` acts on; the others are left alone, without a transaction (`EventHandler.handles`).
    func handles(_ type: EventType) -> Bool {
        switch type {
        case .userRegistered, .userUpdated, .userWithdrawn, .userFollowed, .userUnfollowed,
            .purchaseCompleted:
            true
        case .postCreated, .postUpdated, .postDeleted, .commentCreated, .commentDeleted, .postLiked,
            .postUnliked, .mediaStored, .chatMessageSent:
            false
        }
    }

    func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws {
        switch event.eventType {
        case .userRegistered:
            let user = try event.payload(as: UserRegistered.self)
            try await upsertProfile(
                userId: user.userId, nick: user.nick, profileImage: user.profileImage, at: user.registeredAt,
                connection: connection, logger: logger)
        case .userUpdated:
            let user = try event.payload(as: UserUpdated.self)
            try await upsertProfile(
                userId: user.userId, nick: user.nick, profileImage: user.profileImage, at: user.updatedAt,
                connection: connection, logger: logger)
        case .userWithdrawn:
            let user = try event.payload(as: UserWithdrawn.self)
            try await connection.query(
                """
                INSERT INTO users (user_id, withdrawn_at) VALUES (\(user.userId), \(user.withdrawnAt))
                ON CONFLICT (user_id) DO UPDATE SET withdrawn_at = coalesce(users.withdrawn_at, EXCLUDED.withdrawn_at)
                """, logger: logger)
            try await connection.query(
                "UPDATE posts SET author_withdrawn = true WHERE user_id = \(user.userId) AND NOT author_withdrawn",
                logger: logger)
            try await connection.query(
                "DELETE FROM follows WHERE follower_id = \(user.userId) OR followee_id = \(user.userId)",
                logger: logger)
        case .userFollowed:
            let edge = try event.payload(as: UserFollowed.self).edge
            // A follow that arrives after either side withdrew (another topic, no ordering) is not kept.
            try await connection.query(
                """
                INSERT INTO follows (follower_id, followee_id)
                SELECT \(edge.followerId), \(edge.followeeId)
                WHERE NOT EXISTS (SELECT 1 FROM users WHERE user_id IN (\(edge.followerId), \(edge.followeeId))
                                  AND withdrawn_at IS NOT NULL)
                ON CONFLICT DO NOTHING
                """, logger: logger)
        case .userUnfollowed:
            let edge = try event.payload(as: UserUnfollowed.self).edge
            try await connection.query(
                "DELETE FROM follows WHERE follower_id = \(edge.followerId) AND followee_id = \(edge.followeeId)",
                logger: logger)
        case .purchaseCompleted:
            let purchase = try event.payload(as: PurchaseCompleted.self)
            try await connection.query(
                """
                INSERT INTO buyers (post_id, user_id, paid_at) VALUES (\(purchase.postId), \(purchase.buyerId), \(purchase.paidAt))
                ON CONFLICT DO NOTHING
                """, logger: logger)
        default:
            return
        }
    }

    /// Profiles may come from two producers (auth at sign-up, the profile owner later), so the newest
    /// `at` wins regardless of arrival order.
    private func upsertProfile(
        userId: String, nick: String, profileImage: String?, at: Date,
        connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO users (user_id, nick, profile_image, profile_at) VALUES (\(userId), \(nick), \(profileImage), \(at))
            ON CONFLICT (user_id) DO UPDATE SET nick = EXCLUDED.nick, profile_image = EXCLUDED.profile_image, profile_at = EXCLUDED.profile_at
            WHERE users.profile_at IS NULL OR users.profile_at <= EXCLUDED.profile_at
            """, logger: logger)
    }
}
