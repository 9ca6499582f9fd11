import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSTestSupport
import Synchronization
import Testing

@testable import SNSPlatform

/// The compatibility rules of decision 0001, as a consumer applies them: a newer *minor* version (extra fields
/// in the envelope or the payload) is consumed as usual; an unknown event type is skipped and counted, never
/// applied, recorded or crashed on; a newer *major* version is a poison message (dead-lettered after retries).
@Suite("Event schema compatibility")
struct EventCompatibilityTests {
    func consumer(_ platform: TestPlatform, applied: AppliedLog) throws -> IdempotentConsumer {
        let name = TestEnvironment.unique("compat-")
        return try IdempotentConsumer(
            name: name, topics: [Topic.media],
            kafka: KafkaConfiguration(
                bootstrapServers: platform.brokers, clientId: name, properties: TestPlatform.fastConsumerProperties),
            client: platform.postgres, producer: platform.producer,
            handler: ClosureEventHandler { event, _, _ in
                let probe = try event.payload(as: Probe.self)
                applied.add(probe.sequence)
            },
            options: .init(maxAttempts: 2, retryBase: .milliseconds(5)), logger: TestEnvironment.logger)
    }

    func message(_ json: String) -> KafkaConsumerMessage {
        KafkaConsumerMessage(
            topic: Topic.media, partition: 0, offset: 0, key: Array("k".utf8), value: Array(json.utf8),
            headers: [], timestamp: nil)
    }

    func processedCount(_ platform: TestPlatform, _ eventId: String) async throws -> Int {
        let rows = try await platform.postgres.query(
            "SELECT count(*)::int FROM \(table: platform.schema, "processed_events") WHERE event_id = \(UUID(uuidString: eventId)!)",
            logger: TestEnvironment.logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    @Test func newerMinorVersionsAreConsumedUnknownTypesSkippedNewerMajorsDeadLettered() async throws {
        try await TestPlatform.with { platform in
            let applied = AppliedLog()
            let consumer = try consumer(platform, applied: applied)

            // Extra fields everywhere (a newer minor version of the envelope and of the payload): applied.
            let minor = UUID().uuidString.lowercased()
            let extended = """
                {"event_id":"\(minor)","type":"media-stored","schema_version":1,"occurred_at":"2026-11-22T10:00:00.000Z",
                 "aggregate_id":"k","producer":"future","trace_flags":"01","payload":{"sequence":7,"run":"compat","colour":"blue"}}
                """
            #expect(try await consumer.process(message(extended)) == .applied)
            #expect(applied.values == [7])
            #expect(try await processedCount(platform, minor) == 1)

            // A type this build does not know: skipped, not recorded (a replay after an upgrade applies it).
            let unknown = UUID().uuidString.lowercased()
            let gift = """
                {"event_id":"\(unknown)","type":"gift-sent","schema_version":1,"occurred_at":"2026-11-22T10:00:00.000Z",
                 "aggregate_id":"k","producer":"future","payload":{"sequence":8}}
                """
            #expect(try await consumer.process(message(gift)) == .skipped(type: "gift-sent"))
            #expect(applied.values == [7])
            #expect(try await processedCount(platform, unknown) == 0)

            // A newer major version of a known type: this consumer cannot read it; after its retries it is parked
            // on the dead-letter topic (and `sns-admin dlq retry` brings it back once the consumer is upgraded).
            let major = """
                {"event_id":"\(UUID().uuidString.lowercased())","type":"media-stored","schema_version":2,
                 "occurred_at":"2026-11-22T10:00:00.000Z","aggregate_id":"k","producer":"future","payload":{"seq":9}}
                """
            guard case .deadLettered(let reason) = try await consumer.process(message(major)) else {
                Issue.record("a newer major version was not dead-lettered")
                await consumer.consumer.shutdown()
                return
            }
            #expect(reason.contains("schema major version 2"))
            #expect(applied.values == [7])
            await consumer.consumer.shutdown()
        }
    }
}

/// What the test handler applied, in order.
final class AppliedLog: Sendable {
    private let storage = Mutex<[Int]>([])
    func add(_ value: Int) { storage.withLock { $0.append(value) } }
    var values: [Int] { storage.withLock { $0 } }
}
