import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import MarketService

/// The market applies runs of post snapshots with one statement per run (decision 0015): the products it prices
/// payments from must equal those of applying the events one by one, absent titles, prices and product ids included.
@Suite("Market's product read model in batches")
struct ProductReadModelBatchTests {
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func aBatchEndsInTheSameProductsAsOneByOne(seed: UInt64) async throws {
        try await TestPlatform.with { platform in
            let (batched, single) = try await PostEventStream.applyBothWays(
                try PostEventStream.events(seed: seed, count: 60), platform: platform,
                migrations: { MarketMigrations.all(schema: $0) }, handler: { ProductReadModelHandler(schema: $0) },
                rows: { schema in """
                    SELECT concat_ws('|', post_id, seller_id, coalesce(product_id, '<null>'), coalesce(title, '<null>'),
                                     coalesce(price::text, '<null>'), updated_at, coalesce(deleted_at::text, '<live>'))
                    FROM \(table: schema, "products") ORDER BY post_id
                    """ })
            #expect(single.count == 6)
            #expect(batched == single)
        }
    }
}
