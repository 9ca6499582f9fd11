import SNSPlatform

/// The media schema (normally `media`; tests use a private one). Platform tables (outbox, processed events)
/// come first; these start at 100.
enum MediaMigrations {
    static func all(schema: SQLIdentifier) -> [Migration] {
        [
            Migration(
                version: 100, name: "files_and_references",
                sql: """
                    -- One row per stored file. The row is the file's existence as far as the API is concerned:
                    -- no row, no download (410), whatever is on disk.
                    CREATE TABLE \(schema.table("files")) (
                        path text PRIMARY KEY,
                        owner_id text NOT NULL,
                        kind text NOT NULL,
                        content_type text NOT NULL,
                        size bigint NOT NULL,
                        etag text NOT NULL,
                        created_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX files_created_idx ON \(schema.table("files")) (created_at);
                    CREATE INDEX files_owner_idx ON \(schema.table("files")) (owner_id);

                    -- What keeps a file alive: a post (or a profile) that shows it, learned from events. Paths are
                    -- the strings the events carry, with no foreign key, since an event may name a path we never stored.
                    CREATE TABLE \(schema.table("references")) (
                        holder_kind text NOT NULL,
                        holder_id text NOT NULL,
                        path text NOT NULL,
                        owner_id text NOT NULL,
                        PRIMARY KEY (holder_kind, holder_id, path)
                    );
                    CREATE INDEX references_path_idx ON \(schema.table("references")) (path);
                    CREATE INDEX references_owner_idx ON \(schema.table("references")) (owner_id);

                    -- Users whose withdrawal we processed: a post event of theirs that arrives later (another topic,
                    -- so no ordering with user-withdrawn) must not bring their references back.
                    CREATE TABLE \(schema.table("withdrawn_users")) (
                        user_id text PRIMARY KEY,
                        withdrawn_at timestamptz NOT NULL
                    );
                    """)
        ]
    }
}
