import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// SQL over `auth.identities`: which account a provider's user (provider, subject) signs into. A link is
/// *active* until its account is withdrawn (`released_at`); at most one active link per (provider, subject),
/// enforced by a partial unique index. Every statement binds its values.
struct IdentityStore: Sendable {
    struct LinkedAccount: Sendable {
        var userId: String
        var email: String
        var nick: String
        var profileImage: String?
    }

    /// Another sign-in linked the identity first (the unique index said so).
    struct AlreadyLinked: Error {}

    let client: DatabasePool

    /// The active account the identity signs into, if any.
    func activeAccount(provider: FederatedProvider, subject: String, logger: Logger) async throws -> LinkedAccount? {
        let rows = try await client.query(
            """
            SELECT a.user_id, a.email, a.nick, a.profile_image
            FROM identities i JOIN accounts a ON a.user_id = i.user_id
            WHERE i.provider = \(provider.rawValue) AND i.subject = \(subject) AND i.released_at IS NULL AND a.withdrawn_at IS NULL
            """, logger: logger)
        for try await (userId, email, nick, image) in rows.decode((String, String, String, String?).self) {
            return LinkedAccount(userId: userId, email: email, nick: nick, profileImage: image)
        }
        return nil
    }

    /// What a replay check needs: when the identity's last account was withdrawn, and whether this very credential
    /// opened a session of an account that has since been withdrawn.
    func withdrawalTraces(provider: FederatedProvider, subject: String, credentialHash: [UInt8], logger: Logger)
        async throws -> (lastRelease: Date?, credentialOfWithdrawnAccount: Bool)
    {
        let rows = try await client.query(
            """
            SELECT (SELECT max(released_at) FROM identities WHERE provider = \(provider.rawValue) AND subject = \(subject)),
                   EXISTS (SELECT 1 FROM refresh_tokens r JOIN accounts a ON a.user_id = r.user_id
                           WHERE r.credential_hash = \(ByteBuffer(bytes: credentialHash)) AND a.withdrawn_at IS NOT NULL)
            """, logger: logger)
        for try await (released, used) in rows.decode((Date?, Bool).self) { return (released, used) }
        return (nil, false)
    }

    /// Links the identity to a new account inside the caller's transaction.
    func link(
        provider: FederatedProvider, subject: String, userId: String, phoneNumber: String?, at date: Date,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        do {
            try await connection.query(
                """
                INSERT INTO identities (provider, subject, user_id, phone_number, created_at, last_sign_in_at)
                VALUES (\(provider.rawValue), \(subject), \(userId), \(phoneNumber), \(date), \(date))
                """, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw AlreadyLinked()
        }
    }

    /// Records a later sign-in (and the provider's current phone number, for Firebase).
    func recordSignIn(provider: FederatedProvider, subject: String, phoneNumber: String?, logger: Logger) async throws {
        try await client.query(
            """
            UPDATE identities SET last_sign_in_at = now(), phone_number = coalesce(\(phoneNumber), phone_number)
            WHERE provider = \(provider.rawValue) AND subject = \(subject) AND released_at IS NULL
            """, logger: logger)
    }

    /// The account is withdrawn: its identities sign into it no more (inside the withdrawal's transaction).
    func release(userId: String, at date: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "UPDATE identities SET released_at = \(date) WHERE user_id = \(userId) AND released_at IS NULL",
            logger: logger)
    }
}
