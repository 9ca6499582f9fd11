import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// Projects `sns.users` into chat's `users` (nick and image of participants and senders, withdrawals), inside the
/// idempotent consumer's transaction. Converges under repetition and reordering: the newest profile wins, a
/// withdrawal is permanent.
struct ChatUsersProjection: EventHandler {
    let schema: SQLIdentifier

    /// The types `handle` acts on; the others are left alone, without a transaction (`EventHandler.handles`).
    func handles(_ type: EventType) -> Bool {
        switch type {
        case .userRegistered, .userUpdated, .userWithdrawn: true
        case .postCreated, .postUpdated, .postDeleted, .commentCreated, .commentDeleted, .postLiked,
            .postUnliked, .userFollowed, .userUnfollowed, .purchaseCompleted, .mediaStored, .chatMessageSent:
            false
        }
    }

    func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws {
        switch event.eventType {
        case .userRegistered:
            let user = try event.payload(as: UserRegistered.self)
            try await profile(
                user.userId, nick: user.nick, image: user.profileImage, at: user.registeredAt, on: connection,
                logger: logger)
        case .userUpdated:
            let user = try event.payload(as: UserUpdated.self)
            try await profile(
                user.userId, nick: user.nick, image: user.profileImage, at: user.updatedAt, on: connection,
                logger: logger)
        case .userWithdrawn:
            let user = try event.payload(as: UserWithdrawn.self)
            let s = schema
            try await connection.query(
                """
                INSERT INTO \(table: s, "users") (user_id, withdrawn_at) VALUES (\(user.userId), \(user.withdrawnAt))
                ON CONFLICT (user_id) DO UPDATE
                SET withdrawn_at = coalesce(\(table: s, "users").withdrawn_at, EXCLUDED.withdrawn_at)
                """, logger: logger)
        default:
            return
        }
    }

    private func profile(
        _ userId: String, nick: String, image: String?, at: Date, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let s = schema
        try await connection.query(
            """
            INSERT INTO \(table: s, "users") (user_id, nick, profile_image, profile_at)
            VALUES (\(userId), \(nick), \(image), \(at))
            ON CONFLICT (user_id) DO UPDATE
            SET nick = EXCLUDED.nick, profile_image = EXCLUDED.profile_image, profile_at = EXCLUDED.profile_at
            WHERE \(table: s, "users").profile_at IS NULL OR \(table: s, "users").profile_at <= EXCLUDED.profile_at
            """, logger: logger)
    }
}
