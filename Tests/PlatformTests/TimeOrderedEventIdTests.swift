import Foundation
import PostgresNIO
import SNSTestSupport
import Testing

@testable import SNSPlatform

/// Event ids are version 7 UUIDs (decision 0026): their first 48 bits are the millisecond they were made, so the
/// outbox's and the consumers' indexes on them are appended to at their right edge.
@Suite("Time-ordered event ids")
struct TimeOrderedEventIdTests {
    @Test func versionVariantAndTheMillisecondAreWhereRFC9562PutsThem() {
        let date = Date(timeIntervalSince1970: 1_795_000_000.123_9)  // 1 795 000 000 123 ms
        let made = (0..<50).map { _ in UUID.timeOrdered(at: date) }
        for id in made {
            let hex = id.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            #expect(hex.prefix(12) == String(format: "%012llx", 1_795_000_000_123 as UInt64))
            #expect(Array(hex)[12] == "7", "version 7")
            #expect("89ab".contains(Array(hex)[16]), "variant 0b10")
        }
        #expect(Set(made).count == made.count, "random after the time")
    }

    @Test func anEnvelopesIdIsTimeOrderedByDefault() {
        let envelope = EventEnvelope(type: "probe", aggregateId: "a", producer: "tests", requestId: nil, payload: 1)
        #expect(Array(envelope.eventId.uuidString)[14] == "7")
        let millisecond = UInt64(Date().timeIntervalSince1970 * 1000)
        let prefix = UInt64(envelope.eventId.uuidString.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16)
        #expect(prefix.map { $0 <= millisecond && millisecond - $0 < 60_000 } == true)
    }

    /// PostgreSQL's `uuid` order (bytes) is the order of the milliseconds, whatever the random bits.
    @Test func postgreSQLSortsThemByTheirMillisecond() async throws {
        let start = 1_795_000_000.0
        let made = (0..<200).map { step in
            UUID.timeOrdered(at: Date(timeIntervalSince1970: start + Double(step) * 0.001 + 0.0004))
        }
        try await TestEnvironment.withDatabase { db in
            let texts = made.shuffled().map { $0.uuidString }
            let rows = try await db.query(
                "SELECT array_agg(id::text ORDER BY id) FROM unnest(\(texts)::uuid[]) AS id",
                logger: TestEnvironment.logger)
            for try await sorted in rows.decode([String].self) {
                #expect(sorted == made.map { $0.uuidString.lowercased() })
            }
        }
    }
}
