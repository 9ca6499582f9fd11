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
    let client: PostgresClient

    package init(schema: SQLIdentifier, client: PostgresClient) {
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

    /// Makes `paths` exactly the files `holder` references. Takes a share lock on the stored files among them
    /// first, so a garbage collection running at the same moment either already deleted them or skips them.
    func replaceReferences(
        holder: Holder, id: String, owner: String, paths: [String],
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let unique = Array(Set(paths)).sorted()
        if !unique.isEmpty {
            try await connection.query(
                """
                SELECT 1 FROM \(table: schema, "files") WHERE path = ANY(\(unique)) ORDER BY path FOR SHARE
                """, logger: logger)
        }
        try await connection.query(
            """
            DELETE FROM \(table: schema, "references")
            WHERE holder_kind = \(holder.rawValue) AND holder_id = \(id) AND NOT (path = ANY(\(unique)))
            """, logger: logger)
        if !unique.isEmpty {
            try await connection.query(
                """
                INSERT INTO \(table: schema, "references") (holder_kind, holder_id, path, owner_id)
                SELECT \(holder.rawValue), \(id), p, \(owner) FROM unnest(\(unique)::text[]) AS p
                ON CONFLICT (holder_kind, holder_id, path) DO UPDATE SET owner_id = EXCLUDED.owner_id
                """, logger: logger)
        }
    }

    /// What one post snapshot says its post shows.
    struct PostFiles: Sendable, Equatable {
        var postId: String
        var ownerId: String
        var paths: [String]
    }

    /// `replaceReferences(holder: .post, …)` for several **distinct** posts in one statement, with the withdrawal
    /// check of the one-by-one path (a withdrawn owner's post references nothing): the same rows and the same share
    /// locks on the stored files (taken, in path order, before the references are written), one round trip instead
    /// of two to four per post.
    func replacePostReferences(_ posts: [PostFiles], on connection: PostgresConnection, logger: Logger) async throws {
        var pairPosts: [String] = []
        var pairPaths: [String] = []
        for post in posts {
            for path in Set(post.paths).sorted() {
                pairPosts.append(post.postId)
                pairPaths.append(path)
            }
        }
        let s = schema
        try await connection.query(
            """
            WITH input AS (
                SELECT * FROM unnest(\(posts.map(\.postId))::text[], \(posts.map(\.ownerId))::text[]) AS i(post_id, owner_id)
            ), wanted AS (
                SELECT i.post_id, i.owner_id, p.path
                FROM unnest(\(pairPosts)::text[], \(pairPaths)::text[]) AS p(post_id, path)
                JOIN input i USING (post_id)
                WHERE NOT EXISTS (SELECT 1 FROM \(table: s, "withdrawn_users") w WHERE w.user_id = i.owner_id)
            ), locked AS (
                SELECT f.path FROM \(table: s, "files") f WHERE f.path IN (SELECT path FROM wanted)
                ORDER BY f.path FOR SHARE
            ), removed AS (
                DELETE FROM \(table: s, "references") r USING input i
                WHERE r.holder_kind = \(Holder.post.rawValue) AND r.holder_id = i.post_id
                  AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.post_id = r.holder_id AND w.path = r.path)
            )
            INSERT INTO \(table: s, "references") (holder_kind, holder_id, path, owner_id)
            SELECT \(Holder.post.rawValue), w.post_id, w.path, w.owner_id FROM wanted w
            WHERE (SELECT count(*) FROM locked) >= 0
            ON CONFLICT (holder_kind, holder_id, path) DO UPDATE SET owner_id = EXCLUDED.owner_id
            """, logger: logger)
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

    func isWithdrawn(userId: String, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query(
            "SELECT 1 FROM \(table: schema, "withdrawn_users") WHERE user_id = \(userId)", logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }
}
