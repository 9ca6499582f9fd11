import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// SQL over the media schema: `files` (what is stored), `references` (what keeps files alive) and
/// `withdrawn_users`. Every value is a bind; only the schema identifier is spliced (validated `SQLIdentifier`).
package struct MediaCatalog: Sendable {
    /// What a download needs to know about a stored file.
    package struct FileRecord: Sendable, Equatable {
        package var path: String
        package var ownerId: String
        package var contentType: String
        package var size: Int
        package var etag: String
        package var createdAt: Date
    }

    /// Which kind of thing holds a reference.
    enum Holder: String, Sendable {
        case post
        case profile
        /// A chat message (its id).
        case chat
    }

    package let schema: SQLIdentifier
    let client: DatabasePool

    package init(schema: SQLIdentifier, client: DatabasePool) {
        self.schema = schema
        self.client = client
    }

    // MARK: Files

    /// `created_at` is the database's clock (the transaction's start), the same clock garbage collection
    /// measures the grace period with.
    func insertFile(_ file: StoredFile, owner: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO \(table: schema, "files") (path, owner_id, kind, content_type, size, etag)
            VALUES (\(file.path.string), \(owner), \(file.path.kind.rawValue), \(file.type.contentType), \(file.size), \(file.sha256))
            """, logger: logger)
    }

    package func file(path: String, logger: Logger) async throws -> FileRecord? {
        let rows = try await client.query(
            """
            SELECT path, owner_id, content_type, size, etag, created_at FROM \(table: schema, "files") WHERE path = \(path)
            """, logger: logger)
        for try await (path, owner, contentType, size, etag, createdAt) in rows.decode(
            (String, String, String, Int, String, Date).self)
        {
            return FileRecord(
                path: path, ownerId: owner, contentType: contentType, size: size, etag: etag, createdAt: createdAt)
        }
        return nil
    }

    /// Claims and deletes up to `limit` files that nothing references and that are older than `grace`, inside
    /// the caller's transaction; returns their paths.
    ///
    /// Two statements on purpose. The first claims candidates with `FOR UPDATE SKIP LOCKED`: replicas collect
    /// side by side without waiting for or double-collecting each other's rows, and files whose reference is
    /// being written right now are skipped (`replaceReferences` holds a share lock on them). The second
    /// deletes the claimed rows that are *still* unreferenced, under a fresh snapshot: a reference committed
    /// after the first statement's snapshot but before its lock is seen, and none can be added now that the
    /// rows are locked (writers of references must lock them first).
    func deleteUnreferenced(olderThan grace: Duration, limit: Int, on connection: PostgresConnection, logger: Logger)
        async throws -> [String]
    {
        let graceSeconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
        let claimed = try await connection.query(
            """
            SELECT f.path FROM \(table: schema, "files") f
            WHERE f.created_at <= now() - make_interval(secs => \(graceSeconds))
              AND NOT EXISTS (SELECT 1 FROM \(table: schema, "references") r WHERE r.path = f.path)
            ORDER BY f.created_at
            LIMIT \(limit)
            FOR UPDATE OF f SKIP LOCKED
            """, logger: logger)
        var candidates: [String] = []
        for try await path in claimed.decode(String.self) { candidates.append(path) }
        guard !candidates.isEmpty else { return [] }
        let deleted = try await connection.query(
            """
            DELETE FROM \(table: schema, "files") f
            WHERE f.path = ANY(\(candidates))
              AND NOT EXISTS (SELECT 1 FROM \(table: schema, "references") r WHERE r.path = f.path)
            RETURNING f.path
            """, logger: logger)
        var paths: [String] = []
        for try await path in deleted.decode(String.self) { paths.append(path) }
        return paths
    }

    // MARK: References

    /// What one holder (a post, a profile, a chat message) shows, as its event says.
    struct HeldFiles: Sendable, Equatable {
        var id: String
        var ownerId: String
        var paths: [String]
    }

    /// Makes each holder's `paths` exactly the files it references, for several **distinct** holders of one kind in one
    /// statement. A holder whose owner withdrew references nothing (a late event of a withdrawn user brings nothing
    /// back). Share locks on the stored files among the paths are taken first, in path order, so a garbage collection
    /// running at the same moment either already deleted them or skips them.
    func replaceReferences(
        holder: Holder, _ holders: [HeldFiles], on connection: PostgresConnection, logger: Logger
    ) async throws {
        let statement = Self.replacingReferences(holder: holder, holders)
        for try await _ in try await connection.execute(statement, logger: logger) {}
    }

    /// `replaceReferences`'s statement (also run by the consumer together with an event's record).
    static func replacingReferences(holder: Holder, _ holders: [HeldFiles]) -> ReplaceReferences {
        var pairIds: [String] = []
        var pairPaths: [String] = []
        for held in holders {
            for path in Set(held.paths).sorted() {
                pairIds.append(held.id)
                pairPaths.append(path)
            }
        }
        return ReplaceReferences(
            holderIds: holders.map(\.id), ownerIds: holders.map(\.ownerId), pairIds: pairIds, pairPaths: pairPaths,
            holderKind: holder.rawValue)
    }

    func removeReferences(holder: Holder, id: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            DELETE FROM \(table: schema, "references") WHERE holder_kind = \(holder.rawValue) AND holder_id = \(id)
            """, logger: logger)
    }

    /// Removes every reference held by the user's posts and profile, and remembers the withdrawal.
    func withdraw(userId: String, at date: Date, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "DELETE FROM \(table: schema, "references") WHERE owner_id = \(userId)", logger: logger)
        try await connection.query(
            """
            INSERT INTO \(table: schema, "withdrawn_users") (user_id, withdrawn_at) VALUES (\(userId), \(date))
            ON CONFLICT (user_id) DO NOTHING
            """, logger: logger)
    }

    /// Whether the user withdrew (outside a transaction: the authentication check of every request).
    func isWithdrawn(userId: String, logger: Logger) async throws -> Bool {
        let rows = try await client.query(
            "SELECT 1 FROM \(table: schema, "withdrawn_users") WHERE user_id = \(userId)", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }
}
