import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSTestSupport
import Synchronization
import Testing

@testable import SNSPlatform

@Suite("Idempotent consumer, retries and dead-letter topic")
struct IdempotentConsumerTests {
    /// An effect table in the test schema: one row per applied probe.
    func createEffectTable(_ platform: TestPlatform) async throws {
        try await platform.postgres.query(
            "CREATE TABLE \(table: platform.schema, "effects") (event_id uuid, sequence int, applied_at timestamptz DEFAULT now(), tx bigint DEFAULT txid_current())",
            logger: TestEnvironment.logger)
    }

    func effectCount(_ platform: TestPlatform) async throws -> Int {
        let rows = try await platform.postgres.query(
            "SELECT count(*)::int FROM \(table: platform.schema, "effects")", logger: TestEnvironment.logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Records each probe as a row in `effects`. The first `failures` attempts then fail through `fail`, after
    /// the row was written, so only a rollback can keep the effect from applying twice.
    func recordingHandler(
        _ platform: TestPlatform, failFirst failures: Int = 0,
        fail: @escaping @Sendable (PostgresConnection, Logger) async throws -> Void = { _, _ in }
    ) -> ClosureEventHandler {
        let schema = platform.schema
        let failuresLeft = FailureBudget(failures)
        return ClosureEventHandler { event, connection, logger in
            let probe = try event.payload(as: Probe.self)
            try await connection.query(
                "INSERT INTO \(table: schema, "effects") (event_id, sequence) VALUES (\(event.metadata.eventId), \(probe.sequence))",
                logger: logger)
            if failuresLeft.take() { try await fail(connection, logger) }
        }
    }

    func message(for envelope: EventEnvelope<Probe>, offset: Int64 = 0) throws -> KafkaConsumerMessage {
        KafkaConsumerMessage(
            topic: Topic.media, partition: 0, offset: offset, key: Array(envelope.aggregateId.utf8),
            value: Array(try EventCoding.encoder().encode(envelope)), headers: [], timestamp: nil)
    }

    func makeConsumer(_ platform: TestPlatform, name: String, handler: some EventHandler, maxAttempts: Int = 3) throws
        -> IdempotentConsumer
    {
        try IdempotentConsumer(
            name: name, topics: [Topic.media],
            kafka: KafkaConfiguration(
                bootstrapServers: platform.brokers, clientId: name, properties: TestPlatform.fastConsumerProperties),
            client: platform.postgres, producer: platform.producer, handler: handler,
            options: .init(maxAttempts: maxAttempts, retryBase: .milliseconds(5)), logger: TestEnvironment.logger)
    }

    @Test func aRedeliveredEventIsAppliedOnce() async throws {
        try await TestPlatform.with { platform in
            try await createEffectTable(platform)
            let consumer = try makeConsumer(
                platform, name: TestEnvironment.unique("dup-"), handler: recordingHandler(platform))
            let envelope = EventEnvelope(
                type: Probe.eventType.rawValue, aggregateId: "a", producer: "test", requestId: nil,
                payload: Probe(sequence: 1, run: "dup"))
            #expect(try await consumer.process(try message(for: envelope, offset: 10)) == .applied)
            // The same event again (a redelivery after a crash before the offset commit, or a republish).
            #expect(try await consumer.process(try message(for: envelope, offset: 10)) == .duplicate)
            #expect(try await consumer.process(try message(for: envelope, offset: 42)) == .duplicate)
            #expect(try await effectCount(platform) == 1)
            await consumer.consumer.shutdown()
        }
    }

    @Test func aFailingEffectRollsBackItsProcessedMarkAndIsRetried() async throws {
        try await TestPlatform.with { platform in
            try await createEffectTable(platform)
            struct Transient: Error {}
            let flaky = recordingHandler(platform, failFirst: 2) { _, _ in throw Transient() }
            let consumer = try makeConsumer(
                platform, name: TestEnvironment.unique("retry-"), handler: flaky, maxAttempts: 5)
            let envelope = EventEnvelope(
                type: Probe.eventType.rawValue, aggregateId: "a", producer: "test", requestId: nil,
                payload: Probe(sequence: 1, run: "retry"))
            #expect(try await consumer.process(try message(for: envelope)) == .applied)
            #expect(try await effectCount(platform) == 1, "the two failed attempts left nothing behind")
            await consumer.consumer.shutdown()
        }
    }

    /// A handler that acts on `Probe`s only (`handles`) and says those of the run "nothing" change nothing
    /// (`changesAnything`), recording the others like `recordingHandler`.
    struct ProbesOnly: EventHandler {
        let recording: ClosureEventHandler
        func handles(_ type: EventType) -> Bool { type == Probe.eventType }
        func changesAnything(_ event: IncomingEvent) -> Bool {
            (try? event.payload(as: Probe.self).run) != "nothing"
        }
        func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws {
            try await recording.handle(event, connection: connection, logger: logger)
        }
    }

    /// Events of a type the handler does not act on are neither handed to it nor recorded as processed, alone or
    /// in a batch, and they do not hold back the events it does act on.
    @Test func eventsOfTypesTheHandlerLeavesAloneAreNeitherHandledNorRecorded() async throws {
        try await TestPlatform.with { platform in
            try await createEffectTable(platform)
            let name = TestEnvironment.unique("ignore-")
            let consumer = try makeConsumer(
                platform, name: name, handler: ProbesOnly(recording: recordingHandler(platform)))
            func other(_ sequence: Int) -> EventEnvelope<Probe> {
                EventEnvelope(
                    type: EventType.chatMessageSent.rawValue, aggregateId: "a", producer: "test", requestId: nil,
                    payload: Probe(sequence: sequence, run: "ignore"))
            }
            #expect(try await consumer.process(try message(for: other(1), offset: 1)) == .ignored)
            let mixed = try await consumer.applyAll([
                try message(for: other(2), offset: 2), try message(for: probe(3, run: "ignore"), offset: 3),
            ])
            #expect(mixed == [.ignored, .applied])
            let ignoredOnly = try await consumer.applyAll([
                try message(for: other(4), offset: 4), try message(for: other(5), offset: 5),
            ])
            #expect(ignoredOnly == [.ignored, .ignored])
            #expect(try await effectCount(platform) == 1)
            let rows = try await platform.postgres.query(
                "SELECT count(*)::int FROM \(table: platform.schema, "processed_events") WHERE consumer = \(name)",
                logger: TestEnvironment.logger)
            for try await count in rows.decode(Int.self) { #expect(count == 1, "only the probe is recorded") }
            await consumer.consumer.shutdown()
        }
    }

    /// An event the handler says changes nothing is left alone like one of a type it does not handle: not handed
    /// to it, not recorded, alone or in a batch, without holding back the others.
    @Test func eventsTheHandlerSaysChangeNothingAreNeitherHandledNorRecorded() async throws {
        try await TestPlatform.with { platform in
            try await createEffectTable(platform)
            let name = TestEnvironment.unique("nothing-")
            let consumer = try makeConsumer(
                platform, name: name, handler: ProbesOnly(recording: recordingHandler(platform)))
            #expect(try await consumer.process(try message(for: probe(1, run: "nothing"), offset: 1)) == .ignored)
            let mixed = try await consumer.applyAll([
                try message(for: probe(2, run: "nothing"), offset: 2), try message(for: probe(3, run: "x"), offset: 3),
            ])
            #expect(mixed == [.ignored, .applied])
            #expect(try await consumer.process(try message(for: probe(4, run: "x"), offset: 4)) == .applied)
            #expect(try await effects(platform).sequences == [3, 4])
            let rows = try await platform.postgres.query(
                "SELECT count(*)::int FROM \(table: platform.schema, "processed_events") WHERE consumer = \(name)",
                logger: TestEnvironment.logger)
            for try await count in rows.decode(Int.self) {
                #expect(count == 2, "only the probes that change something")
            }
            await consumer.consumer.shutdown()
        }
    }

    /// A serialization conflict (like a deadlock or a lost connection) is the infrastructure's fault, not the
    /// event's: it is waited out and never counts toward dead-lettering (here even with a single allowed attempt).
    /// (Killing the backend with pg_terminate_backend was tried first: PostgresNIO 1.33.2 can then hang a query
    /// forever — see the README's known risks — so the conflict is raised by the server instead.)
    @Test func aTransientDatabaseFailureIsRetriedWithoutDeadLettering() async throws {
        try await TestPlatform.with { platform in
            try await createEffectTable(platform)
            let handler = recordingHandler(platform, failFirst: 2) { connection, logger in
                try await connection.query(
                    "DO $$ BEGIN RAISE EXCEPTION 'simulated conflict' USING ERRCODE = 'serialization_failure'; END $$",
                    logger: logger)
            }
            let consumer = try makeConsumer(
                platform, name: TestEnvironment.unique("outage-"), handler: handler, maxAttempts: 1)
            let envelope = EventEnvelope(
                type: Probe.eventType.rawValue, aggregateId: "a", producer: "test", requestId: nil,
                payload: Probe(sequence: 7, run: "outage"))
            #expect(try await consumer.process(try message(for: envelope)) == .applied)
            #expect(try await effectCount(platform) == 1)
            await consumer.consumer.shutdown()
        }
    }

    func probe(_ sequence: Int, run: String) -> EventEnvelope<Probe> {
        EventEnvelope(
            type: Probe.eventType.rawValue, aggregateId: "a", producer: "test", requestId: nil,
            payload: Probe(sequence: sequence, run: run))
    }

    func effects(_ platform: TestPlatform) async throws -> (sequences: [Int], transactions: Int) {
        let rows = try await platform.postgres.query(
            """
            SELECT sequence, (SELECT count(DISTINCT tx) FROM \(table: platform.schema, "effects"))::int
            FROM \(table: platform.schema, "effects") ORDER BY applied_at, sequence
            """,
            logger: TestEnvironment.logger)
        var sequences: [Int] = [], transactions = 0
        for try await (sequence, count) in rows.decode((Int, Int).self) {
            sequences.append(sequence); transactions = count
        }
        return (sequences, transactions)
    }

    /// A batch is applied in one transaction; an event seen before, or twice within the batch, is applied once.
    @Test func aBatchIsAppliedInOneTransactionAndEachEventOnce() async throws {
        try await TestPlatform.with { platform in
            try await createEffectTable(platform)
            let consumer = try makeConsumer(
                platform, name: TestEnvironment.unique("batch-"), handler: recordingHandler(platform))
            let seenBefore = probe(0, run: "batch")
            #expect(try await consumer.process(try message(for: seenBefore)) == .applied)
            let first = probe(1, run: "batch")
            let batch = try [first, probe(2, run: "batch"), seenBefore, first, probe(3, run: "batch")].enumerated().map
            {
                try message(for: $0.element, offset: Int64(10 + $0.offset))
            }
            let (settled, outcomes) = await consumer.settle(batch)
            #expect(settled.count == 5)
            #expect(outcomes == [.applied, .applied, .duplicate, .duplicate, .applied])
            let (sequences, transactions) = try await effects(platform)
            #expect(sequences == [0, 1, 2, 3])
            #expect(transactions == 2, "one for the event seen before, one for the whole batch")
            await consumer.consumer.shutdown()
        }
    }

    /// One event whose handler always fails must neither hold back nor duplicate the others of its batch: the
    /// batch's transaction is rolled back and the batch applied event by event, the bad one dead-lettered.
    @Test func aFailingEventInABatchIsDeadLetteredAndTheOthersAppliedOnce() async throws {
        try await TestPlatform.with { platform in
            try await createEffectTable(platform)
            struct Broken: Error {}
            let schema = platform.schema
            let handler = ClosureEventHandler { event, connection, logger in
                let probe = try event.payload(as: Probe.self)
                try await connection.query(
                    "INSERT INTO \(table: schema, "effects") (event_id, sequence) VALUES (\(event.metadata.eventId), \(probe.sequence))",
                    logger: logger)
                if probe.sequence == 2 { throw Broken() }
            }
            let consumer = try makeConsumer(
                platform, name: TestEnvironment.unique("batch-fail-"), handler: handler, maxAttempts: 2)
            var batch = try (1...3).map { try message(for: probe($0, run: "batch-fail"), offset: Int64($0)) }
            batch.insert(
                KafkaConsumerMessage(
                    topic: Topic.media, partition: 0, offset: 4, key: nil, value: Array("not json".utf8), headers: [],
                    timestamp: nil), at: 1)
            let (settled, outcomes) = await consumer.settle(batch)
            #expect(settled.count == 4)
            #expect(
                outcomes.map { if case .deadLettered = $0 { "dead" } else { "\($0)" } } == [
                    "applied", "dead", "dead", "applied",
                ])
            #expect(try await effects(platform).sequences == [1, 3])
            await consumer.consumer.shutdown()
        }
    }

    /// End to end through the broker: a poison message (not an envelope) and an event whose handler always
    /// fails both land on the dead-letter topic with the reason in headers; a good event after them in the
    /// same partition is still applied, and a redelivered duplicate is not applied twice.
    @Test func poisonMessagesAreDeadLetteredAndThePartitionKeepsFlowing() async throws {
        try await TestPlatform.with { platform in
            try await createEffectTable(platform)
            let run = TestEnvironment.unique("dlq")
            let key = Array("agg-\(run)".utf8)
            let schema = platform.schema
            let handler = ClosureEventHandler { event, connection, logger in
                guard event.metadata.aggregateId == "agg-\(run)" else { return }  // other tests' traffic
                let probe = try event.payload(as: Probe.self)
                struct Broken: Error, CustomStringConvertible {
                    var description: String { "handler rejects sequence 2" }
                }
                if probe.sequence == 2 { throw Broken() }
                try await connection.query(
                    "INSERT INTO \(table: schema, "effects") (event_id, sequence) VALUES (\(event.metadata.eventId), \(probe.sequence))",
                    logger: logger)
            }
            let good = EventEnvelope(
                type: Probe.eventType.rawValue, aggregateId: "agg-\(run)", producer: "test", requestId: nil,
                payload: Probe(sequence: 1, run: run))
            let failing = EventEnvelope(
                type: Probe.eventType.rawValue, aggregateId: "agg-\(run)", producer: "test", requestId: nil,
                payload: Probe(sequence: 2, run: run))
            let after = EventEnvelope(
                type: Probe.eventType.rawValue, aggregateId: "agg-\(run)", producer: "test", requestId: nil,
                payload: Probe(sequence: 3, run: run))
            let encoder = EventCoding.encoder()
            _ = try await platform.producer.send([
                KafkaOutgoingMessage(topic: Topic.media, key: key, value: Array(try encoder.encode(good))),
                KafkaOutgoingMessage(topic: Topic.media, key: key, value: Array("this is not json \(run)".utf8)),
                KafkaOutgoingMessage(topic: Topic.media, key: key, value: Array(try encoder.encode(failing))),
                // duplicate
                KafkaOutgoingMessage(topic: Topic.media, key: key, value: Array(try encoder.encode(good))),
                KafkaOutgoingMessage(topic: Topic.media, key: key, value: Array(try encoder.encode(after))),
            ])
            let consumerName = TestEnvironment.unique("dlq-consumer-")
            let consumer = try makeConsumer(platform, name: consumerName, handler: handler, maxAttempts: 3)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await consumer.run() }
                let deadLetters = try await platform.collect(topic: Topic.deadLetter) { seen in
                    seen.filter { $0.key == key }.count >= 2
                }.filter { $0.key == key }
                let reasons = deadLetters.map { Self.header($0, EventHeader.dlqReason) ?? "" }
                #expect(deadLetters.count == 2)
                #expect(reasons.contains { $0.contains("not an event envelope") })
                #expect(reasons.contains { $0.contains("handler rejects sequence 2") })
                #expect(deadLetters.allSatisfy { Self.header($0, EventHeader.dlqConsumer) == consumerName })
                #expect(deadLetters.allSatisfy { Self.header($0, EventHeader.dlqOriginalTopic) == Topic.media })
                #expect(deadLetters.contains { Self.header($0, EventHeader.dlqAttempts) == "3" })
                // The partition kept flowing: sequence 3 gets applied; the duplicate of 1 does not apply twice.
                for _ in 0..<600 where try await effectCount(platform) < 2 {
                    try await Task.sleep(for: .milliseconds(100))
                }
                let rows = try await platform.postgres.query(
                    "SELECT sequence FROM \(table: schema, "effects") ORDER BY sequence", logger: TestEnvironment.logger
                )
                var sequences: [Int] = []
                for try await sequence in rows.decode(Int.self) { sequences.append(sequence) }
                #expect(sequences == [1, 3])
                await consumer.consumer.shutdown()
                group.cancelAll()
            }
        }
    }

    static func header(_ message: KafkaConsumerMessage, _ name: String) -> String? {
        message.headers.first { $0.key == name }?.stringValue
    }
}

/// Says yes to the first `count` calls of `take()`.
final class FailureBudget: Sendable {
    private let left: Mutex<Int>
    init(_ count: Int) { left = Mutex(count) }
    func take() -> Bool {
        left.withLock { left in
            defer { left -= 1 }; return left > 0
        }
    }
}
