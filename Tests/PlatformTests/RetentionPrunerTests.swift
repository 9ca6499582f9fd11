import Foundation
import PostgresNIO
import SNSTestSupport
import Testing

@testable import SNSPlatform

/// Decision 0038: published outbox rows and processed-event records older than the retention are deleted; pending
/// rows and recent rows stay.
@Suite("Retention of the outbox and the processed-event records")
struct RetentionPrunerTests {
    static let day: TimeInterval = 24 * 3600

    /// One outbox row, written as the outbox would have written it `age` ago (published or not).
    func outboxRow(_ platform: TestPlatform, age: TimeInterval, published: Bool) async throws {
        let created = Date().addingTimeInterval(-age)
        let id = UUID.timeOrdered(at: created)
        let publishedAt: Date? = published ? created.addingTimeInterval(0.01) : nil
        _ = try await platform.postgres.query(
            """
            INSERT INTO \(table: platform.schema, "outbox")
                (event_id, topic, partition_key, event_type, payload, created_at, published_at)
            VALUES (\(id), 'sns.media', 'retention', 'media-stored', '{}'::jsonb, \(created), \(publishedAt))
            """, logger: TestEnvironment.logger)
    }

    /// One processed-event record of `consumer`: its event made `eventAge` ago, applied `appliedAge` ago.
    func record(
        _ platform: TestPlatform, consumer: String, eventId: UUID, appliedAge: TimeInterval, offset: Int64
    ) async throws {
        _ = try await platform.postgres.query(
            """
            INSERT INTO \(table: platform.schema, "processed_events")
                (consumer, event_id, topic, kafka_partition, kafka_offset, processed_at)
            VALUES (\(consumer), \(eventId), 'sns.media', 0, \(offset), \(Date().addingTimeInterval(-appliedAge)))
            """, logger: TestEnvironment.logger)
    }

    func count(_ platform: TestPlatform, _ sql: PostgresQuery) async throws -> Int {
        var total = 0
        for try await value in try await platform.postgres.query(sql, logger: TestEnvironment.logger).decode(Int.self) {
            total = value
        }
        return total
    }

    @Test func deletesOnlyOldPublishedRowsAndRecordsWhoseEventAndApplicationAreOld() async throws {
        try await TestPlatform.with { platform in
            let s = platform.schema
            for _ in 0..<5 { try await outboxRow(platform, age: 10 * Self.day, published: true) }  // go
            for _ in 0..<3 { try await outboxRow(platform, age: 10 * Self.day, published: false) }  // pending: stay
            for _ in 0..<4 { try await outboxRow(platform, age: 6 * Self.day, published: true) }  // recent: stay

            var offset: Int64 = 0
            for consumer in ["alpha-projections", "beta-projections"] {
                for _ in 0..<5 {  // event and application older than the retention: go
                    offset += 1
                    try await record(
                        platform, consumer: consumer,
                        eventId: .timeOrdered(at: Date().addingTimeInterval(-10 * Self.day)),
                        appliedAge: 10 * Self.day, offset: offset)
                }
                // An old event applied recently (a replay, a late consumer): stays until its application is old.
                offset += 1
                try await record(
                    platform, consumer: consumer, eventId: .timeOrdered(at: Date().addingTimeInterval(-10 * Self.day)),
                    appliedAge: Self.day, offset: offset)
                for _ in 0..<2 {  // recent: stay
                    offset += 1
                    try await record(
                        platform, consumer: consumer, eventId: .timeOrdered(), appliedAge: 0, offset: offset)
                }
            }

            // Batches of two, so that every kind of row is deleted over several statements.
            let pruner = RetentionPruner(
                schema: s, client: platform.postgres,
                policy: RetentionPolicy(
                    outbox: .seconds(7 * 24 * 3600), processedEvents: .seconds(8 * 24 * 3600), interval: .seconds(3600)),
                logger: TestEnvironment.logger, batchSize: 2, pauseBetweenBatches: .zero)
            let pass = try await pruner.prune()
            #expect(pass == RetentionPruner.Pass(outboxRows: 5, processedEvents: 10))

            #expect(
                try await count(platform, "SELECT count(*)::int FROM \(table: s, "outbox") WHERE published_at IS NULL")
                    == 3)
            #expect(try await count(platform, "SELECT count(*)::int FROM \(table: s, "outbox")") == 7)
            #expect(try await count(platform, "SELECT count(*)::int FROM \(table: s, "processed_events")") == 6)
            let oldest = Date().addingTimeInterval(-2 * Self.day)
            #expect(
                try await count(
                    platform,
                    "SELECT count(*)::int FROM \(table: s, "processed_events") WHERE processed_at < \(oldest)") == 0)

            // Nothing is left to delete: the next pass deletes nothing.
            #expect(try await pruner.prune() == RetentionPruner.Pass())
        }
    }

    /// One replica prunes a schema at a time: while another holds the schema's pruning lock, a pass deletes nothing
    /// and ends; the next pass, with the lock free, deletes.
    @Test func aReplicaFindingThePruningTakenLeavesItToTheOther() async throws {
        try await TestPlatform.with { platform in
            for _ in 0..<3 { try await outboxRow(platform, age: 10 * Self.day, published: true) }
            let pruner = RetentionPruner(
                schema: platform.schema, client: platform.postgres, policy: .standard, logger: TestEnvironment.logger)
            let schema = platform.schema.name
            let whileHeld = try await platform.postgres.withTransaction(logger: TestEnvironment.logger) { connection in
                _ = try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(RetentionPruner.pruneLockClass), hashtext(\(schema)))",
                    logger: TestEnvironment.logger)
                return try await pruner.prune()
            }
            #expect(whileHeld == RetentionPruner.Pass())
            #expect(try await pruner.prune() == RetentionPruner.Pass(outboxRows: 3, processedEvents: 0))
        }
    }

    @Test func aPolicyWithoutRetentionDeletesNothing() async throws {
        try await TestPlatform.with { platform in
            try await outboxRow(platform, age: 400 * Self.day, published: true)
            let pruner = RetentionPruner(
                schema: platform.schema, client: platform.postgres, policy: .keepEverything,
                logger: TestEnvironment.logger)
            #expect(pruner.policy.prunes == false)
            #expect(try await pruner.prune() == RetentionPruner.Pass())
            #expect(try await count(platform, "SELECT count(*)::int FROM \(table: platform.schema, "outbox")") == 1)
        }
    }

    @Test func theVariablesAndTheirDefaults() throws {
        #expect(try RetentionPolicy(environment: Environment([:])) == .standard)
        let custom = try RetentionPolicy(
            environment: Environment([
                "SNS_OUTBOX_RETENTION_HOURS": "24", "SNS_PROCESSED_EVENTS_RETENTION_HOURS": "48",
                "SNS_RETENTION_INTERVAL_MINUTES": "5",
            ]))
        #expect(
            custom
                == RetentionPolicy(
                    outbox: .seconds(86_400), processedEvents: .seconds(172_800), interval: .seconds(300)))
        let forever = try RetentionPolicy(
            environment: Environment(["SNS_OUTBOX_RETENTION_HOURS": "0", "SNS_PROCESSED_EVENTS_RETENTION_HOURS": "0"]))
        #expect(forever.outbox == nil && forever.processedEvents == nil && !forever.prunes)
        // Records must outlive the outbox: a republished event has to find its record.
        for records in ["24", "1"] {
            #expect(throws: ConfigurationError.self) {
                try RetentionPolicy(
                    environment: Environment([
                        "SNS_OUTBOX_RETENTION_HOURS": "48", "SNS_PROCESSED_EVENTS_RETENTION_HOURS": records,
                    ]))
            }
        }
        #expect(throws: ConfigurationError.self) {
            try RetentionPolicy(
                environment: Environment([
                    "SNS_OUTBOX_RETENTION_HOURS": "0", "SNS_PROCESSED_EVENTS_RETENTION_HOURS": "48",
                ]))
        }
        #expect(throws: ConfigurationError.self) {
            try RetentionPolicy(environment: Environment(["SNS_RETENTION_INTERVAL_MINUTES": "0"]))
        }
    }

    /// The bound sorts above every id of an earlier millisecond and at or below every id of its own or a later one,
    /// in PostgreSQL's byte order.
    @Test func theLowerBoundOfAMillisecond() async throws {
        let date = Date(timeIntervalSince1970: 1_795_000_000.5)
        let bound = UUID.timeOrderedLowerBound(at: date)
        let before = (0..<50).map { _ in UUID.timeOrdered(at: date.addingTimeInterval(-0.001)) }
        let same = (0..<50).map { _ in UUID.timeOrdered(at: date) }
        try await TestEnvironment.withDatabase { db in
            let rows = try await db.query(
                """
                SELECT count(*) FILTER (WHERE b < \(bound))::int, count(*) FILTER (WHERE s >= \(bound))::int
                FROM unnest(\(before), \(same)) AS t(b, s)
                """, logger: TestEnvironment.logger)
            for try await (below, atOrAbove) in rows.decode((Int, Int).self) {
                #expect(below == 50)
                #expect(atOrAbove == 50)
            }
        }
    }
}
