import Foundation
import PostgresNIO
import SNSKafka
import SNSPlatform
import SNSTestSupport
import Testing

@testable import SocialService

/// Social applies runs of post snapshots with one statement per run (decision 0015). Whatever the mix and order
/// of creations, updates (older and newer), deletions and repeats, the rows must equal those of applying the same
/// events one by one.
@Suite("Social's post projection in batches")
struct PostProjectionBatchTests {
    func message<P: EventPayload>(_ payload: P, key: String, offset: Int) throws -> IncomingEvent {
        let envelope = EventEnvelope(type: P.eventType.rawValue, aggregateId: key, producer: "test", requestId: nil, payload: payload)
        return try IncomingEvent(message: KafkaConsumerMessage(
            topic: Topic.posts, partition: 0, offset: Int64(offset), key: Array(key.utf8),
            value: Array(try EventCoding.encoder().encode(envelope)), headers: [], timestamp: nil))
    }

    /// A seeded random stream over a few posts, so that runs repeat posts and mix every kind of event.
    func events(seed: UInt64, count: Int) throws -> [IncomingEvent] {
        var random = SeededRandom(seed: seed)
        let start = Date(timeIntervalSince1970: 1_750_000_000.123)
        var events: [IncomingEvent] = []
        for index in 0..<count {
            let post = "p\(random.next() % 6)"
            let at = start.addingTimeInterval(Double(random.next() % 1_000) / 7)  // out of order on purpose
            let snapshot = PostSnapshot(
                postId: post, userId: "u\(post)", productId: random.next() % 4 == 0 ? nil : "prod\(random.next() % 2)",
                title: nil, price: nil, files: [], hashTags: random.next() % 2 == 0 ? ["태그\(index % 3)", "Tag"] : [],
                createdAt: start, updatedAt: at)
            switch random.next() % 10 {
            case 0...4: events.append(try message(PostCreated(post: snapshot), key: post, offset: index))
            case 5...7: events.append(try message(PostUpdated(post: snapshot), key: post, offset: index))
            default: events.append(try message(PostDeleted(postId: post, userId: "u\(post)", productId: snapshot.productId, files: [], deletedAt: at), key: post, offset: index))
            }
        }
        return events
    }

    func rows(_ platform: TestPlatform, _ schema: SQLIdentifier) async throws -> [String] {
        let rows = try await platform.postgres.query("""
            SELECT concat_ws('|', post_id, user_id, coalesce(product_id, '<null>'), hash_tags::text, created_at, updated_at,
                             coalesce(deleted_at::text, '<live>'))
            FROM \(table: schema, "posts") ORDER BY post_id
            """, logger: TestEnvironment.logger)
        var result: [String] = []
        for try await row in rows.decode(String.self) { result.append(row) }
        return result
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func aBatchEndsInTheSameRowsAsOneByOne(seed: UInt64) async throws {
        try await TestPlatform.with { platform in
            let batched = try SQLIdentifier(TestEnvironment.unique("sb_")), single = try SQLIdentifier(TestEnvironment.unique("ss_"))
            for schema in [batched, single] {
                try await Migrator(schema: schema, migrations: PlatformMigrations.all(schema: schema) + SocialMigrations.all(schema: schema))
                    .migrate(client: platform.postgres, logger: TestEnvironment.logger)
            }
            let stream = try events(seed: seed, count: 60)
            let batchHandler = ProjectionHandler(schema: batched), singleHandler = ProjectionHandler(schema: single)
            try await platform.postgres.transaction(logger: TestEnvironment.logger) { connection in
                try await batchHandler.handle(batch: stream, connection: connection, logger: TestEnvironment.logger)
            }
            for event in stream {
                try await platform.postgres.transaction(logger: TestEnvironment.logger) { connection in
                    try await singleHandler.handle(event, connection: connection, logger: TestEnvironment.logger)
                }
            }
            let expected = try await rows(platform, single)
            #expect(expected.count == 6)
            #expect(try await rows(platform, batched) == expected)
        }
    }
}

/// xorshift64*: the same stream for the same seed on every machine.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
