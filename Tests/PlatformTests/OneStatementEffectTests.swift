import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSTestSupport
import Synchronization
import Testing

@testable import SNSPlatform

/// A test effect: one row per applied probe in `one_statement_effects` of the test schema (found through the pool's
/// search path, as a service's tables are). A negative sequence breaks the table's CHECK: the statement fails.
struct ProbeEffect: OneStatementEffect {
    static let name = "test_probe_effect"
    static let sql = parts(onlyIf: "true").standalone
    static let recordedSQL = RecordedEffect<Self>.sql(for: parts)
    static func parts(onlyIf condition: String) -> StatementParts {
        StatementParts(
            ctes: ["probe AS (SELECT $1::uuid AS event_id, $2::int AS sequence)"],
            "INSERT INTO one_statement_effects (event_id, sequence) SELECT event_id, sequence FROM probe WHERE \(condition)"
        )
    }
    static let bindingDataTypes: [PostgresDataType] = [.uuid, .int4]

    let eventId: UUID
    let sequence: Int

    func appendBindings(to bindings: inout PostgresBindings) throws {
        bindings.append(eventId)
        bindings.append(Int32(sequence))
    }
}

/// Applies probes with `ProbeEffect` only; counts the calls of `handle` (the transaction path), which should be none.
final class OneStatementProbes: EventHandler {
    let handleCalls = Atomic<Int>(0)
    func oneStatement(for event: IncomingEvent) throws -> (any OneStatementEffect)? {
        ProbeEffect(eventId: event.metadata.eventId, sequence: try event.payload(as: AwaitedProbe.self).sequence)
    }
    func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws {
        handleCalls.add(1, ordering: .relaxed)
    }
}

/// A consumer given one event at a time records and applies it with the handler's one statement (decision 0015,
/// amended): the same guarantees as the transaction path — applied once, nothing recorded when the effect fails,
/// awaited events announced, duplicates included.
@Suite("One statement: record, announcement and effect")
struct OneStatementEffectTests {
    @Test func parametersAreRenumberedAfterTheRecordsOwn() {
        #expect(
            StatementParts.shift("$1, $12 + $3::text[] WHERE x = '$' AND $9", by: 7)
                == "$8, $19 + $10::text[] WHERE x = '$' AND $16")
        let sql = ProbeEffect.recordedSQL
        #expect(sql.contains("SELECT $8::uuid AS event_id, $9::int AS sequence"))
        #expect(sql.contains("WHERE EXISTS (SELECT 1 FROM sns_recorded)"))
        #expect(
            ProbeEffect.sql == "WITH probe AS (SELECT $1::uuid AS event_id, $2::int AS sequence)\n"
                + "INSERT INTO one_statement_effects (event_id, sequence) SELECT event_id, sequence FROM probe WHERE true"
        )
    }

    func createTable(_ platform: TestPlatform) async throws {
        try await platform.postgres.query(
            "CREATE TABLE \(table: platform.schema, "one_statement_effects") (event_id uuid, sequence int CHECK (sequence >= 0))",
            logger: TestEnvironment.logger)
    }

    func count(_ platform: TestPlatform, _ sql: PostgresQuery) async throws -> Int {
        for try await count in try await platform.postgres.query(sql, logger: TestEnvironment.logger).decode(Int.self) {
            return count
        }
        return 0
    }

    func consumer(_ platform: TestPlatform, name: String, handler: OneStatementProbes) throws -> IdempotentConsumer {
        try IdempotentConsumer(
            name: name, topics: [Topic.posts],
            kafka: KafkaConfiguration(bootstrapServers: platform.brokers, clientId: name, properties: [:]),
            client: platform.postgres, producer: platform.producer, handler: handler,
            options: .init(maxAttempts: 2, retryBase: .milliseconds(5)), logger: TestEnvironment.logger)
    }

    func message(_ eventId: UUID, sequence: Int, offset: Int64, awaitedBy: String? = nil) throws -> KafkaConsumerMessage
    {
        let envelope = EventEnvelope(
            eventId: eventId, type: AwaitedProbe.eventType.rawValue, aggregateId: "one",
            producer: ReadYourWritesBarrierTests.writer, requestId: nil, payload: AwaitedProbe(sequence: sequence))
        return KafkaConsumerMessage(
            topic: Topic.posts, partition: 0, offset: offset, key: Array("one".utf8),
            value: Array(try EventCoding.encoder().encode(envelope)),
            headers: awaitedBy.map { [KafkaHeader(key: ReadYourWrites.awaitedHeader, string: $0)] } ?? [],
            timestamp: nil)
    }

    @Test func anEventIsRecordedAndAppliedOnceWithoutATransaction() async throws {
        try await TestPlatform.with { platform in
            try await createTable(platform)
            let handler = OneStatementProbes()
            let name = TestEnvironment.unique("one-")
            let consumer = try consumer(platform, name: name, handler: handler)
            let id = UUID()
            #expect(try await consumer.process(try message(id, sequence: 1, offset: 5)) == .applied)
            #expect(try await consumer.process(try message(id, sequence: 1, offset: 5)) == .duplicate)
            #expect(try await consumer.process(try message(id, sequence: 1, offset: 9)) == .duplicate)
            #expect(
                try await count(
                    platform, "SELECT count(*)::int FROM \(table: platform.schema, "one_statement_effects")") == 1)
            #expect(
                try await count(
                    platform,
                    "SELECT count(*)::int FROM \(table: platform.schema, "processed_events") WHERE consumer = \(name) AND event_id = \(id)"
                ) == 1)
            #expect(handler.handleCalls.load(ordering: .relaxed) == 0, "the transaction path was not taken")
            await consumer.consumer.shutdown()
        }
    }

    @Test func aFailingEffectLeavesNoRecordAndIsDeadLettered() async throws {
        try await TestPlatform.with { platform in
            try await createTable(platform)
            let name = TestEnvironment.unique("one-fail-")
            let consumer = try consumer(platform, name: name, handler: OneStatementProbes())
            let id = UUID()
            let outcome = try await consumer.process(try message(id, sequence: -1, offset: 1))
            guard case .deadLettered = outcome else {
                Issue.record("expected dead-lettering, got \(outcome)")
                return
            }
            #expect(
                try await count(
                    platform,
                    "SELECT count(*)::int FROM \(table: platform.schema, "processed_events") WHERE consumer = \(name)")
                    == 0,
                "the record rolled back with the effect")
            #expect(
                try await count(
                    platform, "SELECT count(*)::int FROM \(table: platform.schema, "one_statement_effects")") == 0)
            await consumer.consumer.shutdown()
        }
    }

    @Test func anAwaitedEventIsAnnouncedNewOrDuplicate() async throws {
        try await TestPlatform.with { platform in
            try await createTable(platform)
            try await ReadYourWritesBarrierTests().withBarrier(timeout: .seconds(120)) { barrier in
                let name = TestEnvironment.unique("one-ryw-")
                let consumer = try consumer(platform, name: name, handler: OneStatementProbes())
                let id = UUID()
                barrier.expect(id, groups: [name])
                #expect(
                    try await consumer.process(try message(id, sequence: 1, offset: 0, awaitedBy: name)) == .applied)
                #expect(await barrier.wait(for: [id]).isEmpty)
                barrier.expect(id, groups: [name])
                #expect(
                    try await consumer.process(try message(id, sequence: 1, offset: 0, awaitedBy: name)) == .duplicate)
                #expect(await barrier.wait(for: [id]).isEmpty)
                await consumer.consumer.shutdown()
            }
        }
    }
}
