import Foundation
import PostgresNIO
import SNSAdmin
import SNSKafka
import SNSPlatform
import SNSTestSupport
import Testing

/// `outbox status` and `republish` on a private schema with its own outbox, against the real database and broker.
@Suite("Admin tool: outbox status and republish")
struct OutboxToolTests {
    struct Note: EventPayload, Equatable {
        static let eventType = EventType.mediaStored  // any type: the envelope goes to the test's own topic
        var n: Int
    }

    /// Appends events to the platform's outbox (on `topic`) and marks all but the last `pending` as published.
    func fill(_ platform: TestPlatform, topic: String, keys: [String], pending: Int = 0) async throws -> [UUID] {
        var ids: [UUID] = []
        for (n, key) in keys.enumerated() {
            let envelope = EventEnvelope(
                type: n % 2 == 0 ? "media-stored" : "post-created", schemaVersion: 1, aggregateId: key,
                producer: "admin-test", requestId: "req-\(n)", payload: Note(n: n))
            try await platform.postgres.transaction(logger: TestEnvironment.logger) { connection in
                try await platform.outbox.append(envelope, topic: topic, on: connection, logger: TestEnvironment.logger)
            }
            ids.append(envelope.eventId)
        }
        let s = platform.schema
        try await platform.postgres.query(
            """
            UPDATE \(table: s, "outbox") SET published_at = now()
            WHERE id IN (SELECT id FROM \(table: s, "outbox") ORDER BY id LIMIT \(keys.count - pending))
            """, logger: TestEnvironment.logger)
        return ids
    }

    @Test func statusCountsPendingAndPublishedAndAgesTheOldestPending() async throws {
        try await TestPlatform.with { platform in
            _ = try await fill(
                platform, topic: TestEnvironment.unique("test.admin."), keys: ["a", "b", "c", "d"], pending: 2)
            let service = ServiceCatalog.Service(
                name: "x", schema: platform.schema.name, localPortOffset: 0, routes: [], consumers: [])
            let missing = ServiceCatalog.Service(
                name: "y", schema: TestEnvironment.unique("nothing_"), localPortOffset: 0, routes: [], consumers: [])
            let statuses = try await OutboxInspector.status(
                of: [service, missing], client: platform.postgres.client, logger: TestEnvironment.logger)
            #expect(statuses[0].migrated && statuses[0].pending == 2 && statuses[0].published == 2)
            #expect((statuses[0].oldestPendingAgeSeconds ?? -1) >= 0)
            #expect(statuses[0].lastPublishedAt != nil)
            #expect(!statuses[1].migrated)
        }
    }

    @Test func republishSendsPublishedHistoryInOrderWithItsIdentity() async throws {
        try await TestPlatform.with { platform in
            let topic = TestEnvironment.unique("test.admin.")
            let keys = ["a", "b", "a", "c", "a", "b", "pending"]
            let ids = try await fill(platform, topic: topic, keys: keys, pending: 1)
            let service = ServiceCatalog.Service(
                name: "x", schema: platform.schema.name, localPortOffset: 0, routes: [], consumers: [])
            let republisher = Republisher(client: platform.postgres.client, logger: TestEnvironment.logger)

            let plan = try await republisher.plan(service: service, filter: .init())
            #expect(plan.matched == 6 && plan.byTopic == [topic: 6] && plan.dryRun)
            let typed = try await republisher.plan(service: service, filter: .init(eventTypes: ["post-created"]))
            #expect(typed.matched == 3)
            let none = try await republisher.plan(
                service: service, filter: .init(since: Date().addingTimeInterval(3600)))
            #expect(none.matched == 0)

            let report = try await republisher.run(service: service, filter: .init(), producer: platform.producer)
            #expect(report.republished == 6 && !report.dryRun)
            let messages = try await platform.collect(topic: topic) { $0.count >= 6 }
            #expect(messages.count == 6)
            // Same event ids (headers), nothing pending, and each key's events in outbox order.
            let sentIds = Set(messages.compactMap { $0.headers.first { $0.key == EventHeader.eventId }?.stringValue })
            #expect(sentIds == Set(ids.prefix(6).map { $0.uuidString.lowercased() }))
            for key in ["a", "b", "c"] {
                let order = messages.filter { $0.key == Array(key.utf8) }.compactMap { message in
                    message.headers.first { $0.key == EventHeader.requestId }?.stringValue
                }
                let expected = keys.indices.filter { keys[$0] == key }.map { "req-\($0)" }
                #expect(order == expected, "\(key)")
            }
        }
    }
}
