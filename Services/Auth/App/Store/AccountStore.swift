import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// SQL over `auth.accounts` and `auth.refresh_tokens`. Every statement binds its values.
struct AccountStore: Sendable {
    struct Account: Sendable {
        var userId: String
        var email: String
        var nick: String
        /// nil for an account created by federated sign-in: email/password login never matches it.
        var passwordHash: String?
        var profileImage: String?
    }

    struct Session: Sendable {
        var sessionId: String
        var userId: String
        var expiresAt: Date
        var revoked: Bool
        var accountActive: Bool
        /// When the presented token was rotated away (G2 refresh), if it was.
        var replacedAt: Date? = nil
    }

    enum InsertConflict: Error { case email, nick }

    let client: DatabasePool

    func emailInUse(_ email: String, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            "SELECT 1 FROM accounts WHERE lower(email) = lower(\(email)) AND withdrawn_at IS NULL", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    func nickInUse(_ nick: String, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            "SELECT 1 FROM accounts WHERE lower(nick) = lower(\(nick)) AND withdrawn_at IS NULL", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// Inserts inside the caller's transaction; a unique-index race surfaces as `InsertConflict`.
    func insert(
        userId: String, email: String, nick: String, passwordHash: String?, phoneNum: String?, birthDay: String?,
        createdAt: Date, on connection: PostgresConnection, logger: Logger
    ) async throws {
        do {
            try await connection.query(
                """
                INSERT INTO accounts (user_id, email, nick, password_hash, phone_num, birth_day, created_at)
                VALUES (\(userId), \(email), \(nick), \(passwordHash), \(phoneNum), \(birthDay), \(createdAt))
                """, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            let constraint = error.serverInfo?[.constraintName] ?? ""
            throw constraint.contains("nick") ? InsertConflict.nick : InsertConflict.email
        }
    }

    func activeAccount(email: String, logger: Logger) async throws -> Account? {
        let rows = try await client.query(
            """
            SELECT user_id, email, nick, password_hash, profile_image FROM accounts
            WHERE lower(email) = lower(\(email)) AND withdrawn_at IS NULL
            """, logger: logger)
        for try await (userId, email, nick, hash, image) in rows.decode((String, String, String, String?, String?).self)
        {
            return Account(userId: userId, email: email, nick: nick, passwordHash: hash, profileImage: image)
        }
        return nil
    }

    /// True when the account exists, is not withdrawn, and (if given) the session is not revoked.
    func isActive(userId: String, sessionId: String?, logger: Logger) async throws -> Bool {
        let rows: PostgresRowSequence
        if let sessionId {
            rows = try await client.query(
                """
                SELECT 1 FROM accounts a JOIN refresh_tokens r ON r.user_id = a.user_id
                WHERE a.user_id = \(userId) AND a.withdrawn_at IS NULL AND r.session_id = \(sessionId) AND r.revoked_at IS NULL
                """, logger: logger)
        } else {
            rows = try await client.query(
                "SELECT 1 FROM accounts WHERE user_id = \(userId) AND withdrawn_at IS NULL", logger: logger)
        }
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    /// `credentialHash`: the federated credential (ID token, Kakao token) that opened the session, if any.
    func createSession(
        sessionId: String, userId: String, tokenHash: [UInt8], expiresAt: Date, credentialHash: [UInt8]? = nil,
        logger: Logger
    ) async throws {
        try await client.query(
            """
            INSERT INTO refresh_tokens (session_id, user_id, token_hash, expires_at, credential_hash)
            VALUES (\(sessionId), \(userId), \(ByteBuffer(bytes: tokenHash)), \(expiresAt), \(credentialHash.map { ByteBuffer(bytes: $0) }))
            """, logger: logger)
    }

    /// The session a refresh token belongs to: its first token, or one a G2 refresh issued (`rotated_tokens`).
    func session(tokenHash: [UInt8], logger: Logger) async throws -> Session? {
        let hash = ByteBuffer(bytes: tokenHash)
        let rows = try await client.query(
            """
            SELECT r.session_id, r.user_id, r.expires_at, r.revoked_at IS NOT NULL, a.withdrawn_at IS NULL, r.replaced_at
            FROM refresh_tokens r JOIN accounts a ON a.user_id = r.user_id
            WHERE r.token_hash = \(hash)
            UNION ALL
            SELECT r.session_id, r.user_id, r.expires_at, r.revoked_at IS NOT NULL, a.withdrawn_at IS NULL, t.replaced_at
            FROM rotated_tokens t JOIN refresh_tokens r ON r.session_id = t.session_id
            JOIN accounts a ON a.user_id = r.user_id
            WHERE t.token_hash = \(hash)
            """, logger: logger)
        for try await (sessionId, userId, expiresAt, revoked, active, replacedAt) in rows.decode(
            (String, String, Date, Bool, Bool, Date?).self)
        {
            return Session(
                sessionId: sessionId, userId: userId, expiresAt: expiresAt, revoked: revoked, accountActive: active,
                replacedAt: replacedAt)
        }
        return nil
    }

    /// G2 rotation: `newHash` joins the session, the presented token (`oldHash`) is marked replaced (once), and the
    /// session's tokens replaced longer ago than `forget` (refused anyway) are deleted, so a session keeps a few rows.
    func rotate(
        sessionId: String, oldHash: [UInt8], newHash: [UInt8], forget: TimeInterval, logger: Logger
    ) async throws {
        let before = Date().addingTimeInterval(-forget)
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query(
                "DELETE FROM rotated_tokens WHERE session_id = \(sessionId) AND replaced_at < \(before)",
                logger: logger)
            try await connection.query(
                "INSERT INTO rotated_tokens (token_hash, session_id) VALUES (\(ByteBuffer(bytes: newHash)), \(sessionId))",
                logger: logger)
            try await connection.query(
                """
                UPDATE refresh_tokens SET replaced_at = now()
                WHERE token_hash = \(ByteBuffer(bytes: oldHash)) AND replaced_at IS NULL
                """, logger: logger)
            try await connection.query(
                """
                UPDATE rotated_tokens SET replaced_at = now()
                WHERE token_hash = \(ByteBuffer(bytes: oldHash)) AND replaced_at IS NULL
                """, logger: logger)
        }
    }

    func touchSession(_ sessionId: String, logger: Logger) async throws {
        try await client.query(
            "UPDATE refresh_tokens SET last_used_at = now() WHERE session_id = \(sessionId)", logger: logger)
    }

    /// Revokes one session, or every session of the user when `sessionId` is nil. Returns how many.
    @discardableResult
    func revokeSessions(userId: String, sessionId: String?, on connection: PostgresConnection, logger: Logger)
        async throws -> Int
    {
        let rows: PostgresRowSequence
        if let sessionId {
            rows = try await connection.query(
                """
                UPDATE refresh_tokens SET revoked_at = now()
                WHERE user_id = \(userId) AND session_id = \(sessionId) AND revoked_at IS NULL RETURNING 1
                """, logger: logger)
        } else {
            rows = try await connection.query(
                """
                UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = \(userId) AND revoked_at IS NULL RETURNING 1
                """, logger: logger)
        }
        var count = 0
        for try await _ in rows.decode(Int.self) { count += 1 }
        return count
    }

    /// Marks the account withdrawn (freeing email and nick) and returns its summary; nil if already gone.
    func withdraw(userId: String, at date: Date, on connection: PostgresConnection, logger: Logger) async throws
        -> AccountSummary?
    {
        let rows = try await connection.query(
            """
            UPDATE accounts SET withdrawn_at = \(date)
            WHERE user_id = \(userId) AND withdrawn_at IS NULL
            RETURNING user_id, email, nick
            """, logger: logger)
        for try await (userId, email, nick) in rows.decode((String, String, String).self) {
            return AccountSummary(userId: userId, email: email, nick: nick)
        }
        return nil
    }
}
