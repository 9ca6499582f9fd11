import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import MarketService

/// The market applies runs of post snapshots with one statement per run (decision 0015): the products it prices
/// payments from must equal those of applying the events one by one, absent titles, prices and product ids included.
@Suite("Market's product read model in batches")
struct ProductReadModelBatchTests {
    /// Five seeds in one test, one after the other: one database pool, not five (the suite runs beside it).
    @Test func aBatchEndsInTheSameProductsAsOneByOne() async throws {
        try await TestPlatform.with { platform in
            for seed in 1...5 as ClosedRange<UInt64> {
                let rows = try await PostEventStream.applyEveryWay(
                    try PostEventStream.events(seed: seed, count: 60), platform: platform,
                    migrations: { MarketMigrations.all(schema: $0) }, handler: { ProductsProjection(schema: $0) },
                    rows: { schema in
                        """
                        SELECT concat_ws('|', post_id, seller_id, coalesce(product_id, '<null>'), coalesce(title, '<null>'),
                                         coalesce(price::text, '<null>'), updated_at, coalesce(deleted_at::text, '<live>'))
                        FROM \(table: schema, "products") ORDER BY post_id
                        """
                    })
                #expect(rows.single.count == 6)
                #expect(rows.batched == rows.single, "seed \(seed)")
                #expect(rows.recorded == rows.single, "seed \(seed): one statement with the record")
            }
        }
    }
}
