import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// Projects `sns.users` and `sns.posts` into this service's tables, inside the idempotent consumer's
/// transaction. Every effect converges whatever the order or repetition of events (see `SocialMigrations`),
/// so counts and rankings come out the same after a replay from the beginning.
struct SocialProjection: EventHandler {
    let schema: SQLIdentifier

    /// The types `handle` acts on; the others are left alone, without a transaction (`EventHandler.handles`).
    func handles(_ type: EventType) -> Bool {
        switch type {
        case .userRegistered, .userUpdated, .userWithdrawn, .postCreated, .postUpdated, .postDeleted,
            .commentCreated, .commentDeleted, .postLiked, .postUnliked:
            true
        case .userFollowed, .userUnfollowed, .purchaseCompleted, .mediaStored, .chatMessageSent: false
        }
    }

    func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws {
        let s = schema
        switch event.eventType {
        case .userRegistered:
            let user = try event.payload(as: UserRegistered.self)
            try await connection.query(
                """
                INSERT INTO \(table: s, "users") (user_id, email, nick, phone_num, birth_day, profile_image, profile_at)
                VALUES (\(user.userId), \(user.email), \(user.nick), \(user.phoneNum), \(user.birthDay), \(user.profileImage), \(user.registeredAt))
                ON CONFLICT (user_id) DO UPDATE SET
                    email = EXCLUDED.email,
                    nick = CASE WHEN \(table: s, "users").profile_at IS NULL OR \(table: s, "users").profile_at <= EXCLUDED.profile_at
                                THEN EXCLUDED.nick ELSE \(table: s, "users").nick END,
                    phone_num = CASE WHEN \(table: s, "users").profile_at IS NULL OR \(table: s, "users").profile_at <= EXCLUDED.profile_at
                                     THEN EXCLUDED.phone_num ELSE \(table: s, "users").phone_num END,
                    birth_day = CASE WHEN \(table: s, "users").profile_at IS NULL OR \(table: s, "users").profile_at <= EXCLUDED.profile_at
                                     THEN EXCLUDED.birth_day ELSE \(table: s, "users").birth_day END,
                    profile_image = CASE WHEN \(table: s, "users").profile_at IS NULL OR \(table: s, "users").profile_at <= EXCLUDED.profile_at
                                         THEN EXCLUDED.profile_image ELSE \(table: s, "users").profile_image END,
                    profile_at = greatest(\(table: s, "users").profile_at, EXCLUDED.profile_at)
                """, logger: logger)
        case .userUpdated:
            let user = try event.payload(as: UserUpdated.self)
            try await ProfileWriter(schema: s).apply(
                userId: user.userId, nick: user.nick, phoneNum: user.phoneNum, birthDay: user.birthDay,
                profileImage: user.profileImage, at: user.updatedAt, on: connection, logger: logger)
        case .userWithdrawn:
            let user = try event.payload(as: UserWithdrawn.self)
            try await connection.query(
                """
                INSERT INTO \(table: s, "users") (user_id, withdrawn_at) VALUES (\(user.userId), \(user.withdrawnAt))
                ON CONFLICT (user_id) DO UPDATE SET withdrawn_at = coalesce(\(table: s, "users").withdrawn_at, EXCLUDED.withdrawn_at)
                """, logger: logger)
            try await connection.query(
                "DELETE FROM \(table: s, "follows") WHERE follower_id = \(user.userId) OR followee_id = \(user.userId)",
                logger: logger)
        case .postCreated:
            try await upsertPost(try event.payload(as: PostCreated.self).post, connection: connection, logger: logger)
        case .postUpdated:
            try await upsertPost(try event.payload(as: PostUpdated.self).post, connection: connection, logger: logger)
        case .postDeleted:
            let post = try event.payload(as: PostDeleted.self)
            try await connection.query(
                """
                INSERT INTO \(table: s, "posts") (post_id, user_id, product_id, created_at, updated_at, deleted_at)
                VALUES (\(post.postId), \(post.userId), \(post.productId), \(post.deletedAt), \(post.deletedAt), \(post.deletedAt))
                ON CONFLICT (post_id) DO UPDATE SET deleted_at = coalesce(\(table: s, "posts").deleted_at, EXCLUDED.deleted_at)
                """, logger: logger)
        case .commentCreated:
            let comment = try event.payload(as: CommentCreated.self)
            try await connection.query(
                """
                INSERT INTO \(table: s, "comments") (comment_id, post_id, user_id, post_user_id, product_id, created_at)
                VALUES (\(comment.commentId), \(comment.postId), \(comment.userId), \(comment.postUserId), \(comment.productId), \(comment.createdAt))
                ON CONFLICT (comment_id) DO UPDATE SET post_user_id = EXCLUDED.post_user_id, product_id = EXCLUDED.product_id,
                                                       created_at = EXCLUDED.created_at
                """, logger: logger)
        case .commentDeleted:
            let comment = try event.payload(as: CommentDeleted.self)
            try await connection.query(
                """
                INSERT INTO \(table: s, "comments") (comment_id, post_id, user_id, product_id, deleted_at)
                VALUES (\(comment.commentId), \(comment.postId), \(comment.userId), \(comment.productId), \(comment.deletedAt))
                ON CONFLICT (comment_id) DO UPDATE SET deleted_at = coalesce(\(table: s, "comments").deleted_at, EXCLUDED.deleted_at)
                """, logger: logger)
        case .postLiked, .postUnliked:
            try await applyLikes(
                try Self.likeChange(event).map { [$0] } ?? [], connection: connection, logger: logger)
        default:
            return
        }
    }

    /// A post snapshot or a like is one statement, which the consumer runs together with the event's record.
    func oneStatement(for event: IncomingEvent) throws -> (any OneStatementEffect)? {
        switch event.eventType {
        case .postCreated: UpsertSocialPosts(posts: [try event.payload(as: PostCreated.self).post])
        case .postUpdated: UpsertSocialPosts(posts: [try event.payload(as: PostUpdated.self).post])
        case .postLiked, .postUnliked: UpsertSocialLikes(likes: try Self.likeChange(event).map { [$0] } ?? [])
        default: nil
        }
    }

    /// A batch: every like and unlike in one statement (`likes` is written by them alone, so they commute with the
    /// batch's other events), runs of distinct posts' snapshots (`PostSnapshotRuns`) in one statement each, every
    /// other event one by one, in order: the same rows as applying them one by one (a tombstoned row takes every
    /// snapshot in arrival order, a live one the newest).
    func handle(batch events: [IncomingEvent], connection: PostgresConnection, logger: Logger) async throws {
        var likes: [(like: LikeChange, active: Bool)] = []
        var others: [IncomingEvent] = []
        for event in events {
            if let like = try Self.likeChange(event) { likes.append(like) } else { others.append(event) }
        }
        try await PostSnapshotRuns.apply(
            others, run: { try await upsertPosts($0, connection: connection, logger: logger) },
            other: { try await handle($0, connection: connection, logger: logger) })
        try await applyLikes(likes, connection: connection, logger: logger)
    }

    /// A like's or an unlike's change; nil for every other event.
    static func likeChange(_ event: IncomingEvent) throws -> (like: LikeChange, active: Bool)? {
        switch event.eventType {
        case .postLiked: (try event.payload(as: PostLiked.self).like, true)
        case .postUnliked: (try event.payload(as: PostUnliked.self).like, false)
        default: nil
        }
    }

    /// Snapshots of distinct posts (one or a run), in one statement.
    private func upsertPosts(_ posts: [PostSnapshot], connection: PostgresConnection, logger: Logger) async throws {
        guard !posts.isEmpty else { return }
        for try await _ in try await connection.execute(UpsertSocialPosts(posts: posts), logger: logger) {}
    }

    private func upsertPost(_ post: PostSnapshot, connection: PostgresConnection, logger: Logger) async throws {
        try await upsertPosts([post], connection: connection, logger: logger)
    }

    /// Likes' states after their latest events, in one statement.
    private func applyLikes(
        _ likes: [(like: LikeChange, active: Bool)], connection: PostgresConnection, logger: Logger
    ) async throws {
        guard !likes.isEmpty else { return }
        for try await _ in try await connection.execute(UpsertSocialLikes(likes: likes), logger: logger) {}
    }
}
