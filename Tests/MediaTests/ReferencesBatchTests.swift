import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import MediaService

/// Media applies runs of post snapshots in four statements per run (decision 0015). The references it keeps —
/// what the garbage collector must not delete — must equal those of applying the events one by one, with repeated
/// paths, posts that come back, deletions and authors who withdraw in between.
@Suite("Media's references in batches")
struct ReferencesBatchTests {
    /// Five seeds in one test, one after the other: one database pool, not five (the suite runs beside it).
    @Test func aBatchEndsInTheSameReferencesAsOneByOne() async throws {
        try await TestPlatform.with { platform in
            for seed in 1...5 as ClosedRange<UInt64> {
                let client = platform.postgres
                let (batched, single) = try await PostEventStream.applyBothWays(
                    try PostEventStream.events(seed: seed, count: 80, mediaFiles: true), platform: platform,
                    migrations: { MediaMigrations.all(schema: $0) },
                    handler: { MediaReferencesHandler(catalog: MediaCatalog(schema: $0, client: client)) },
                    rows: { schema in """
                        SELECT concat_ws('|', holder_kind, holder_id, path, owner_id) FROM \(table: schema, "references")
                        UNION ALL SELECT 'withdrawn|' || user_id FROM \(table: schema, "withdrawn_users")
                        ORDER BY 1
                        """ })
                #expect(!single.isEmpty)
                #expect(batched == single, "seed \(seed)")
            }
        }
    }
}
