import Foundation
import Logging
import PostgresNIO
import SNSAdmin
import SNSKafka
import SNSTestSupport
import Synchronization
import Testing

@testable import SNSPlatform

/// `dlq list / retry / drop` with a real idempotent consumer: a poison event is dead-lettered after its retries
/// while the partition keeps flowing; once the cause is fixed, `retry` brings it back and it is applied exactly
/// once; `drop` hides a message that can never be applied.
@Suite("Admin tool: dead letters")
struct DeadLetterToolTests {
    struct Step: EventPayload, Equatable {
        static let eventType = EventType.mediaStored
        var sequence: Int
    }

    func sequences(_ platform: TestPlatform) async throws -> [Int] {
        let rows = try await platform.postgres.query(
            "SELECT sequence FROM \(table: platform.schema, "effects") ORDER BY sequence",
            logger: TestEnvironment.logger)
        var result: [Int] = []
        for try await sequence in rows.decode(Int.self) { result.append(sequence) }
        return result
    }

    func deadLetters(of consumer: String, store: DeadLetterStore) async throws -> [DeadLetter] {
        let messages = try await KafkaPartitionReader.readAll(
            configuration: KafkaConfiguration(
                bootstrapServers: try TestEnvironment.kafkaBrokers(), clientId: "dlq-test"),
            topic: Topic.deadLetter, logger: TestEnvironment.logger)
        return try await DeadLetters.list(messages: messages, store: store).filter { $0.consumer == consumer }
    }

    @Test func aFixedPoisonEventIsRetriedOnceAndAnUnfixableOneDropped() async throws {
        try await TestPlatform.with { platform in
            let schema = platform.schema
            try await platform.postgres.query(
                "CREATE TABLE \(table: schema, "effects") (sequence int PRIMARY KEY)", logger: TestEnvironment.logger)
            let topic = TestEnvironment.unique("test.dlq.")
            let broken = Mutex(true)
            let handler = ClosureEventHandler { event, connection, logger in
                let step = try event.payload(as: Step.self)
                struct Broken: Error, CustomStringConvertible {
                    var description: String { "step 2 cannot be applied yet" }
                }
                if step.sequence == 2, broken.withLock({ $0 }) { throw Broken() }
                try await connection.query(
                    "INSERT INTO \(table: schema, "effects") (sequence) VALUES (\(step.sequence))", logger: logger)
            }
            let key = Array("aggregate".utf8)
            let encoder = EventCoding.encoder()
            func envelope(_ n: Int) throws -> [UInt8] {
                Array(
                    try encoder.encode(
                        EventEnvelope(
                            type: Step.eventType.rawValue, aggregateId: "aggregate", producer: "test",
                            requestId: nil, payload: Step(sequence: n))))
            }
            _ = try await platform.producer.send([
                KafkaOutgoingMessage(topic: topic, key: key, value: try envelope(1)),
                KafkaOutgoingMessage(topic: topic, key: key, value: try envelope(2)),
                KafkaOutgoingMessage(topic: topic, key: key, value: Array("not an envelope".utf8)),
                KafkaOutgoingMessage(topic: topic, key: key, value: try envelope(3)),
            ])
            let name = TestEnvironment.unique("dlq-tool-")
            let consumer = try IdempotentConsumer(
                name: name, topics: [topic],
                kafka: KafkaConfiguration(
                    bootstrapServers: platform.brokers, clientId: name, properties: TestPlatform.fastConsumerProperties),
                client: platform.postgres, producer: platform.producer, handler: handler,
                options: .init(maxAttempts: 2, retryBase: .milliseconds(5)), logger: TestEnvironment.logger)
            let store = DeadLetterStore(client: platform.postgres.client, logger: TestEnvironment.logger)
            try await store.prepare()

            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await consumer.run() }
                // Both poison messages are parked; the partition kept flowing past them.
                try await eventually("two dead letters of \(name)") {
                    try await deadLetters(of: name, store: store).count == 2
                }
                try await eventually("steps 1 and 3 applied") { try await sequences(platform) == [1, 3] }
                let parked = try await deadLetters(of: name, store: store)
                #expect(parked.allSatisfy { $0.state == "open" && $0.originalTopic == topic })
                let stepTwo = try #require(parked.first { $0.eventType == Step.eventType.rawValue })
                let garbage = try #require(parked.first { $0.eventType == nil })
                #expect(stepTwo.reason?.contains("step 2 cannot be applied yet") == true)
                #expect(stepTwo.attempts == 2)

                // Fixed: retry brings step 2 back; it is applied once, and a second retry does nothing.
                broken.withLock { $0 = false }
                let messages = try await KafkaPartitionReader.readAll(
                    configuration: KafkaConfiguration(bootstrapServers: platform.brokers, clientId: "dlq-test"),
                    topic: Topic.deadLetter, logger: TestEnvironment.logger)
                #expect(
                    try await DeadLetters.retry(
                        [stepTwo], messages: messages, store: store, producer: platform.producer) == [stepTwo.id])
                try await eventually("step 2 applied after the retry") { try await sequences(platform) == [1, 2, 3] }
                #expect(
                    try await DeadLetters.retry(
                        [stepTwo], messages: messages, store: store, producer: platform.producer
                    ).isEmpty)

                // The garbage can never be applied: dropped, it leaves the open list.
                #expect(try await DeadLetters.drop([garbage], reason: "not ours", store: store) == [garbage.id])
                let after = try await deadLetters(of: name, store: store)
                #expect(Set(after.map(\.state)) == ["retried", "dropped"])
                #expect(try await sequences(platform) == [1, 2, 3])

                await consumer.consumer.shutdown()
                group.cancelAll()
            }
        }
    }
}
