import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import SocialService

/// Social applies runs of post snapshots with one statement per run (decision 0015). Whatever the mix and order of
/// creations, updates (older and newer), deletions and repeats, the rows equal those of applying the events one by one.
@Suite("Social's post projection in batches")
struct PostProjectionBatchTests {
    /// Five seeds in one test, one after the other: one database pool, not five (the suite runs beside it).
    @Test func aBatchEndsInTheSameRowsAsOneByOne() async throws {
        try await TestPlatform.with { platform in
            for seed in 1...5 as ClosedRange<UInt64> {
                let rows = try await PostEventStream.applyEveryWay(
                    try PostEventStream.events(seed: seed, count: 60), platform: platform,
                    migrations: { SocialMigrations.all(schema: $0) }, handler: { SocialProjection(schema: $0) },
                    rows: { schema in
                        """
                        SELECT concat_ws('|', post_id, user_id, coalesce(product_id, '<null>'), hash_tags::text, created_at, updated_at,
                                         coalesce(deleted_at::text, '<live>'))
                        FROM \(table: schema, "posts") ORDER BY post_id
                        """
                    })
                #expect(rows.single.count == 6)
                #expect(rows.batched == rows.single, "seed \(seed)")
                #expect(rows.recorded == rows.single, "seed \(seed): one statement with the record")
            }
        }
    }

    /// Likes and unlikes of a few (post, user, kind), out of time order, with equal times and repeated: the same rows
    /// whichever way they are applied, redeliveries included — one by one, in batches (`UpsertSocialLikes` reducing
    /// each key to its latest event) and one statement with the record. Authors and products differ between a key's
    /// events, so that the first event's are the ones a new row must keep.
    @Test func likesEndInTheSameRowsEveryWay() async throws {
        try await TestPlatform.with { platform in
            var random = SeededRandom(seed: 11)
            let start = Date(timeIntervalSince1970: 1_750_000_000.123)
            var stream: [IncomingEvent] = []
            for index in 0..<80 {
                let post = "p\(random.next() % 3)"
                let like = LikeChange(
                    postId: post, userId: "u\(random.next() % 3)", postUserId: "author\(random.next() % 2)",
                    productId: random.next() % 3 == 0 ? nil : "prod\(random.next() % 2)",
                    kind: random.next() % 2 == 0 ? .like : .like2,
                    at: start.addingTimeInterval(Double(random.next() % 6) / 7))  // many equal times, on purpose
                stream.append(
                    random.next() % 3 == 0
                        ? try PostEventStream.event(PostUnliked(like: like), key: post, offset: index)
                        : try PostEventStream.event(PostLiked(like: like), key: post, offset: index))
            }
            let rows = try await PostEventStream.applyEveryWay(
                stream, platform: platform, migrations: { SocialMigrations.all(schema: $0) },
                handler: { SocialProjection(schema: $0) },
                rows: { schema in
                    """
                    SELECT concat_ws('|', post_id, user_id, kind, post_user_id, coalesce(product_id, '<null>'), active, at)
                    FROM \(table: schema, "likes") ORDER BY 1
                    """
                })
            #expect(rows.single.count > 6)
            #expect(rows.batched == rows.single)
            #expect(rows.recorded == rows.single)
        }
    }
}
