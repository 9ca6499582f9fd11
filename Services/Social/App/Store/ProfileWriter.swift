import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// Writes a profile into the users read model if it is at least as new as what is there: used by the
/// `user-updated` projection and right after a profile edit (read-your-writes; the event lands later, same values).
struct ProfileWriter: Sendable {
    let schema: SQLIdentifier

    func apply(
        userId: String, nick: String, phoneNum: String?, birthDay: String?, profileImage: String?, at: Date,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let s = schema
        try await connection.query(
            """
            INSERT INTO \(table: s, "users") (user_id, nick, phone_num, birth_day, profile_image, profile_at)
            VALUES (\(userId), \(nick), \(phoneNum), \(birthDay), \(profileImage), \(at))
            ON CONFLICT (user_id) DO UPDATE SET nick = EXCLUDED.nick, phone_num = EXCLUDED.phone_num,
                birth_day = EXCLUDED.birth_day, profile_image = EXCLUDED.profile_image, profile_at = EXCLUDED.profile_at
            WHERE \(table: s, "users").profile_at IS NULL OR \(table: s, "users").profile_at <= EXCLUDED.profile_at
            """, logger: logger)
    }
}
