import Logging
import PostgresNIO

/// One versioned, plain-SQL migration. `sql` may hold several statements (split by `SQLScript`, which
/// respects quotes, dollar quotes and comments). Versions are applied in ascending order, each exactly once per schema.
package struct Migration: Sendable {
    package let version: Int
    package let name: String
    package let sql: String

    package init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// Applies a service's migrations at start-up.
///
/// All pending migrations run in **one transaction** under a transaction-scoped advisory lock keyed by the
/// schema, so replicas starting together serialise: the first applies, the others wait and then find
/// nothing left to do. A failing migration rolls back entirely and stops the service.
package struct Migrator: Sendable {
    package let schema: SQLIdentifier
    package let migrations: [Migration]

    package init(schema: SQLIdentifier, migrations: [Migration]) {
        precondition(Set(migrations.map(\.version)).count == migrations.count, "duplicate migration versions")
        self.schema = schema
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Returns the versions applied by this call (empty when the schema was already current).
    @discardableResult
    package func migrate(client: PostgresClient, logger: Logger) async throws -> [Int] {
        let schema = self.schema
        let migrations = self.migrations
        // Fast path: a schema that is already current needs no lock. Replicas (and the test suite's many
        // in-process instances) then start without queueing on the advisory lock one after another.
        if try await appliedVersions(client: client, logger: logger).isSuperset(of: migrations.map(\.version)) {
            return []
        }
        // Migrations may rebuild indexes of large tables, and replicas queue on the lock: 30 s (the default that
        // guards against a dead connection) is too short for them.
        return try await client.transaction(logger: logger, timeout: .seconds(600)) { connection -> [Int] in
            let lockKey = "sns.migrate.\(schema.name)"
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lockKey), 0))", logger: logger)
            try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: "\"\(schema.name)\"")", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS \(table: schema, "schema_migrations") (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger: logger)
            var applied = Set<Int>()
            let rows = try await connection.query(
                "SELECT version FROM \(table: schema, "schema_migrations")", logger: logger)
            for try await version in rows.decode(Int.self) { applied.insert(version) }

            var done: [Int] = []
            for migration in migrations where !applied.contains(migration.version) {
                logger.info(
                    "applying migration",
                    metadata: [
                        "schema": "\(schema.name)", "version": "\(migration.version)", "name": "\(migration.name)",
                    ])
                for statement in SQLScript.statements(migration.sql) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO \(table: schema, "schema_migrations") (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
                done.append(migration.version)
            }
            return done
        }
    }

    /// The versions recorded in the schema (none if it does not exist yet), read without locking.
    func appliedVersions(client: PostgresClient, logger: Logger) async throws -> Set<Int> {
        let table = "\"\(schema.name)\".schema_migrations"
        var exists = false
        for try await name in try await client.query("SELECT to_regclass(\(table))::text", logger: logger).decode(
            String?.self)
        {
            exists = name != nil
        }
        guard exists else { return [] }
        var applied = Set<Int>()
        let rows = try await client.query("SELECT version FROM \(table: schema, "schema_migrations")", logger: logger)
        for try await version in rows.decode(Int.self) { applied.insert(version) }
        return applied
    }
}

/// The tables the platform itself keeps in every service's schema: the transactional outbox and the
/// processed-event ids of idempotent consumers. Services put these first in their migration list.
package enum PlatformMigrations {
    package static func all(schema: SQLIdentifier) -> [Migration] {
        [
            Migration(
                version: 1, name: "platform_outbox",
                sql: """
                    CREATE TABLE \(schema.table("outbox")) (
                        id bigserial PRIMARY KEY,
                        event_id uuid NOT NULL UNIQUE,
                        topic text NOT NULL,
                        partition_key text NOT NULL,
                        event_type text NOT NULL,
                        payload jsonb NOT NULL,
                        headers jsonb NOT NULL DEFAULT '{}'::jsonb,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        published_at timestamptz
                    );
                    CREATE INDEX outbox_pending_idx ON \(schema.table("outbox")) (id) WHERE published_at IS NULL;
                    CREATE INDEX outbox_created_idx ON \(schema.table("outbox")) (created_at);
                    """),
            Migration(
                version: 2, name: "platform_processed_events",
                sql: """
                    CREATE TABLE \(schema.table("processed_events")) (
                        consumer text NOT NULL,
                        event_id uuid NOT NULL,
                        topic text NOT NULL,
                        kafka_partition integer NOT NULL,
                        kafka_offset bigint NOT NULL,
                        processed_at timestamptz NOT NULL DEFAULT now(),
                        PRIMARY KEY (consumer, event_id)
                    );
                    """),
        ]
    }
}
