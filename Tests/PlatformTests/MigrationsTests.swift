import Foundation
import PostgresNIO
import SNSTestSupport
import Testing

@testable import SNSPlatform

@Suite("Migrations")
struct MigrationsTests {
    @Test func replicasMigratingAtOnceApplyEachVersionExactlyOnce() async throws {
        try await TestEnvironment.withDatabase { db in
            let schema = try SQLIdentifier(TestEnvironment.unique("mig_"))
            let migrations =
                PlatformMigrations.all(schema: schema) + [
                    Migration(
                        version: 100, name: "things",
                        sql: """
                            -- a comment; with a semicolon
                            CREATE TABLE \(schema.table("things")) (id int PRIMARY KEY, note text DEFAULT 'a;b');
                            CREATE FUNCTION \(schema.table("twice"))(x int) RETURNS int AS $$ BEGIN RETURN x * 2; END; $$ LANGUAGE plpgsql;
                            """)
                ]
            let migrator = Migrator(schema: schema, migrations: migrations)
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<5 {
                    group.addTask { try await migrator.migrate(client: db, logger: TestEnvironment.logger) }
                }
                return try await group.reduce(into: [[Int]]()) { $0.append($1) }
            }
            #expect(applied.filter { !$0.isEmpty } == [[1, 2, 100]])
            let rows = try await db.query(
                "SELECT \(unescaped: schema.table("twice"))(21)", logger: TestEnvironment.logger)
            for try await value in rows.decode(Int.self) { #expect(value == 42) }
            #expect(try await migrator.migrate(client: db, logger: TestEnvironment.logger).isEmpty)
        }
    }

    @Test func aFailingMigrationRollsBackEntirely() async throws {
        try await TestEnvironment.withDatabase { db in
            let schema = try SQLIdentifier(TestEnvironment.unique("bad_"))
            let migrator = Migrator(
                schema: schema,
                migrations: [
                    Migration(version: 1, name: "ok", sql: "CREATE TABLE \(schema.table("a")) (id int)"),
                    Migration(version: 2, name: "broken", sql: "CREATE TABLE nonsense syntax here"),
                ])
            await #expect(throws: (any Error).self) {
                try await migrator.migrate(client: db, logger: TestEnvironment.logger)
            }
            let rows = try await db.query(
                "SELECT count(*)::int FROM information_schema.schemata WHERE schema_name = \(schema.name)",
                logger: TestEnvironment.logger)
            for try await count in rows.decode(Int.self) { #expect(count == 0) }
        }
    }
}

@Suite("SQL script splitting")
struct SQLScriptTests {
    @Test func splitsOnlyOnTopLevelSemicolons() {
        let script = """
            -- leading comment; not a statement
            CREATE TABLE a (x text DEFAULT ';', "we;ird" int);
            /* block; comment */ INSERT INTO a VALUES ('it''s;fine', 1);
            CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            DO $$ BEGIN PERFORM 1; END $$;
            """
        let statements = SQLScript.statements(script)
        #expect(statements.count == 4)
        #expect(statements[0].hasSuffix(#""we;ird" int)"#))
        #expect(statements[1].contains("'it''s;fine'"))
        #expect(statements[2].contains("$body$ SELECT 1; $body$"))
        #expect(statements[3] == "DO $$ BEGIN PERFORM 1; END $$")
    }
}
