import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// SQL for profile edits over `auth.accounts`. Auth keeps the profile's write model because nick uniqueness
/// (join and rename alike) is decided by one partial unique index, `accounts_nick_active_key` on `lower(nick)`
/// among active accounts. Every statement binds its values.
struct ProfileStore: Sendable {
    struct Profile: Sendable, Equatable {
        var userId: String
        var email: String
        var nick: String
        var phoneNum: String?
        var birthDay: String?
        var profileImage: String?
    }

    /// Another active account took the nick first (the unique index said so).
    struct NickTaken: Error {}

    let client: DatabasePool

    /// Whether an active account other than `userId` uses `nick`, case-insensitively. A quick answer for the
    /// common case; the unique index still decides when two renames (or a rename and a join) race.
    func nickTaken(_ nick: String, byOtherThan userId: String, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT 1 FROM accounts
            WHERE lower(nick) = lower(\(nick)) AND withdrawn_at IS NULL AND user_id <> \(userId)
            """, logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// The active account's profile, locked (`FOR UPDATE`) until the caller's transaction ends, so two edits
    /// of one profile apply one after the other and neither loses the other's fields. nil when the account is
    /// unknown or withdrawn (a concurrent withdrawal that committed first included).
    func lockProfile(userId: String, on connection: PostgresConnection, logger: Logger) async throws -> Profile? {
        let rows = try await connection.query(
            """
            SELECT user_id, email, nick, phone_num, birth_day, profile_image FROM accounts
            WHERE user_id = \(userId) AND withdrawn_at IS NULL
            FOR UPDATE
            """, logger: logger)
        for try await (userId, email, nick, phone, birthday, image) in rows.decode(
            (String, String, String, String?, String?, String?).self)
        {
            return Profile(
                userId: userId, email: email, nick: nick, phoneNum: phone, birthDay: birthday, profileImage: image)
        }
        return nil
    }

    /// Writes the whole profile of a locked account inside the caller's transaction and returns its new
    /// `updated_at`: the database clock truncated to milliseconds (the precision of events and responses), but
    /// always at least a millisecond after the previous edit or the sign-up, so consumers that keep the newest
    /// profile (`user-registered` / `user-updated` by time) apply edits in the order they committed even if
    /// clocks disagree. A nick that another active account got first → `NickTaken`.
    func write(_ profile: Profile, on connection: PostgresConnection, logger: Logger) async throws -> Date {
        do {
            let rows = try await connection.query(
                """
                UPDATE accounts
                SET nick = \(profile.nick), phone_num = \(profile.phoneNum), birth_day = \(profile.birthDay),
                    profile_image = \(profile.profileImage),
                    updated_at = date_trunc('milliseconds',
                        greatest(clock_timestamp(), coalesce(updated_at, created_at) + interval '1 millisecond'))
                WHERE user_id = \(profile.userId) AND withdrawn_at IS NULL
                RETURNING updated_at
                """, logger: logger)
            // With RETURNING, a unique violation may surface while the rows are read, so both are inside the `do`.
            for try await updatedAt in rows.decode(Date.self) { return updatedAt }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw NickTaken()
        }
        // The row is locked by this transaction and was active when locked: it cannot have gone.
        throw APIError.internalError()
    }
}
