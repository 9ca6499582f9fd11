import Foundation
import Logging
import PostgresNIO
import SNSAdmin
import SNSKafka
import SNSTestSupport
import Testing

@testable import SNSPlatform

/// `replay` with a real idempotent consumer group: from the beginning with `reapply` every event is applied
/// again once the consumers start; without it the re-delivered events are skipped as duplicates; while a
/// consumer is live the replay is refused; `since` resolves offsets from the group's processed records.
@Suite("Admin tool: replay")
struct ReplayToolTests {
    struct Step: EventPayload, Equatable {
        static let eventType = EventType.mediaStored
        var sequence: Int
    }

    func applications(_ platform: TestPlatform) async throws -> Int {
        let rows = try await platform.postgres.query(
            "SELECT count(*)::int FROM \(table: platform.schema, "effects")", logger: TestEnvironment.logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Runs the group's consumer until `applied` effects exist in total, then stops it (it leaves the group).
    func consume(
        _ platform: TestPlatform, group: String, topic: String, until applied: Int,
        andWhile body: (() async throws -> Void)? = nil
    ) async throws {
        let schema = platform.schema
        let consumer = try IdempotentConsumer(
            name: group, topics: [topic],
            kafka: KafkaConfiguration(
                bootstrapServers: platform.brokers, clientId: group, properties: TestPlatform.fastConsumerProperties),
            client: platform.postgres, producer: platform.producer,
            handler: ClosureEventHandler { event, connection, logger in
                let step = try event.payload(as: Step.self)
                try await connection.query(
                    "INSERT INTO \(table: schema, "effects") (sequence) VALUES (\(step.sequence))", logger: logger)
            },
            options: .init(maxAttempts: 2, retryBase: .milliseconds(5)), logger: TestEnvironment.logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await consumer.run() }
            try await eventually("\(applied) applications") { try await applications(platform) >= applied }
            try await body?()
            // As an operator stops consumers that have caught up: the group's offsets are committed by librdkafka
            // within a second of processing (decision 0030), and a rebalance (the refused replay's join) can
            // hand a partition back from its committed offset, to be read again and skipped.
            let admin = try KafkaAdmin(
                configuration: KafkaConfiguration(bootstrapServers: platform.brokers, clientId: "\(group)-watch"),
                logger: TestEnvironment.logger)
            let high = try await admin.watermarks(topic: topic)
            try await eventually("the group committed the end of every partition") {
                let committed = try await admin.committedOffsets(
                    group: group, topic: topic, partitions: Int32(high.count))
                // A partition that never received a record has nothing to commit.
                return high.allSatisfy { $0.value.high == $0.value.low || committed[$0.key] == $0.value.high }
            }
            await admin.close()
            await consumer.consumer.shutdown()
            tasks.cancelAll()
        }
    }

    @Test func replayReappliesOnlyWhenAskedAndRefusesWhileConsumersRun() async throws {
        try await TestPlatform.with { platform in
            try await platform.postgres.query(
                "CREATE TABLE \(table: platform.schema, "effects") (sequence int)", logger: TestEnvironment.logger)
            let topic = TestEnvironment.unique("test.replay.")
            let group = TestEnvironment.unique("replay-")
            let encoder = EventCoding.encoder()
            _ = try await platform.producer.send(
                try (1...6).map { n in
                    KafkaOutgoingMessage(
                        topic: topic, key: Array("k\(n)".utf8),
                        value: Array(
                            try encoder.encode(
                                EventEnvelope(
                                    type: Step.eventType.rawValue, aggregateId: "k\(n)", producer: "test",
                                    requestId: nil, payload: Step(sequence: n)))))
                })
            let kafka = KafkaConfiguration(
                bootstrapServers: platform.brokers, clientId: "replay-test",
                properties: TestPlatform.fastConsumerProperties)
            let logger = TestEnvironment.logger
            func plan(_ start: ReplayStart, reapply: Bool) async throws -> ReplayPlan {
                try await Replay.plan(
                    group: group, topics: [], start: start, reapply: reapply, schema: platform.schema.name,
                    subscribedTopics: [topic], kafka: kafka, client: platform.postgres.client, logger: logger)
            }

            // First pass: everything applied once. While the consumer runs, a replay is refused.
            try await consume(platform, group: group, topic: topic, until: 6) {
                let running = try await plan(.beginning, reapply: true)
                await #expect(throws: AdminError.self) {
                    _ = try await Replay.apply(
                        running, kafka: kafka, client: platform.postgres.client, logger: logger,
                        joinTimeout: .seconds(8))
                }
            }
            #expect(try await applications(platform) == 6)

            // Nothing was applied after an hour from now: nothing to re-deliver.
            #expect(try await plan(.since(Date().addingTimeInterval(3600)), reapply: false).total == 0)

            // From the beginning with reapply: offsets back to 0, records forgotten, all six applied again.
            let again = try await plan(.beginning, reapply: true)
            #expect(again.total == 6)
            #expect(again.entries.allSatisfy { $0.committed == $0.high })
            #expect(try await Replay.apply(again, kafka: kafka, client: platform.postgres.client, logger: logger) == 6)
            try await consume(platform, group: group, topic: topic, until: 12)
            #expect(try await applications(platform) == 12)

            // Without reapply: re-delivered, skipped as duplicates (the committed offsets reach the end again).
            let plain = try await plan(.beginning, reapply: false)
            #expect(try await Replay.apply(plain, kafka: kafka, client: platform.postgres.client, logger: logger) == 0)
            let admin = try KafkaAdmin(configuration: kafka, logger: logger)
            let partitions = Int32(try await admin.watermarks(topic: topic).count)
            try await consume(platform, group: group, topic: topic, until: 12) {
                try await eventually("the group read everything again") {
                    let committed = try await admin.committedOffsets(group: group, topic: topic, partitions: partitions)
                    return committed.values.reduce(0, +) == 6
                }
            }
            await admin.close()
            #expect(try await applications(platform) == 12)
        }
    }

    @Test func aRebuiltProjectionIsIdenticalToTheOriginal() async throws {
        try await TestPlatform.with { platform in
            let schema = platform.schema
            try await platform.postgres.query(
                "CREATE TABLE \(table: schema, "effects") (sequence int)", logger: TestEnvironment.logger)
            let topic = TestEnvironment.unique("test.rebuild.")
            let group = TestEnvironment.unique("rebuild-")
            let encoder = EventCoding.encoder()
            _ = try await platform.producer.send(
                try (1...20).map { n in
                    KafkaOutgoingMessage(
                        topic: topic, key: Array("k\(n % 7)".utf8),
                        value: Array(
                            try encoder.encode(
                                EventEnvelope(
                                    type: Step.eventType.rawValue, aggregateId: "k\(n % 7)", producer: "test",
                                    requestId: nil, payload: Step(sequence: n)))))
                })
            let kafka = KafkaConfiguration(
                bootstrapServers: platform.brokers, clientId: "rebuild-test",
                properties: TestPlatform.fastConsumerProperties)
            let table = "\"\(schema.name)\".effects"
            let projection = Projection(
                name: "test", group: group, schema: schema.name, topics: [topic],
                clear: ["TRUNCATE \(table)"], tables: [table])
            try await consume(platform, group: group, topic: topic, until: 20)
            let before = try await Rebuild.summary(
                projection, client: platform.postgres.client, logger: TestEnvironment.logger)
            #expect(before.rows == [table: 20])

            #expect(
                try await Rebuild.start(
                    projection, kafka: kafka, client: platform.postgres.client, logger: TestEnvironment.logger) == 20)
            let emptied = try await Rebuild.summary(
                projection, client: platform.postgres.client, logger: TestEnvironment.logger)
            #expect(emptied.rows == [table: 0])
            #expect(try await Rebuild.progress(projection, kafka: kafka, logger: TestEnvironment.logger) == (0, 20))

            try await consume(platform, group: group, topic: topic, until: 20) {
                try await eventually("the group caught up") {
                    let (done, total) = try await Rebuild.progress(
                        projection, kafka: kafka, logger: TestEnvironment.logger)
                    return done == total
                }
            }
            let after = try await Rebuild.summary(
                projection, client: platform.postgres.client, logger: TestEnvironment.logger)
            #expect(after == before)
        }
    }

    /// A `--since` older than every record the group keeps (the rest was pruned, decision 0038) is reported with the
    /// time of its oldest record; a time the records cover is not.
    @Test func aSinceOlderThanTheKeptRecordsIsReported() async throws {
        try await TestPlatform.with { platform in
            let group = TestEnvironment.unique("pruned-group")
            let oldest = Date().addingTimeInterval(-3600)
            for (offset, age) in [(1, 3600.0), (2, 60.0)] {
                _ = try await platform.postgres.query(
                    """
                    INSERT INTO \(table: platform.schema, "processed_events")
                        (consumer, event_id, topic, kafka_partition, kafka_offset, processed_at)
                    VALUES (\(group), \(UUID.timeOrdered()), 'sns.media', 0, \(offset), \(Date().addingTimeInterval(-age)))
                    """, logger: TestEnvironment.logger)
            }
            let client = platform.postgres.client
            let pruned = try await Replay.recordsPruned(
                since: Date().addingTimeInterval(-86_400), group: group, schema: platform.schema.name, client: client,
                logger: TestEnvironment.logger)
            #expect(pruned.map { abs($0.timeIntervalSince(oldest)) < 5 } == true)
            let covered = try await Replay.recordsPruned(
                since: Date().addingTimeInterval(-1800), group: group, schema: platform.schema.name, client: client,
                logger: TestEnvironment.logger)
            #expect(covered == nil)
        }
    }
}
