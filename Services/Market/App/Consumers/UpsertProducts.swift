import Foundation
import PostgresNIO
import SNSPlatform

/// Snapshots of distinct posts into `products` in one prepared statement, one post or a run of them (optional
/// columns travel as a value and an "is null" flag): a newer snapshot wins, a tombstone stays. Prepared once per
/// connection (decision 0023); the table is unqualified, found through the service's search path.
struct UpsertProducts: OneStatementEffect {
    static let name = "market_upsert_products"
    static let sql = parts(onlyIf: "true").standalone
    static let recordedSQL = RecordedEffect<Self>.sql(for: parts)
    static func parts(onlyIf condition: String) -> StatementParts {
        StatementParts(
            """
            INSERT INTO products (post_id, seller_id, product_id, title, price, updated_at)
            SELECT p.post_id, p.seller_id, CASE WHEN p.no_product THEN NULL ELSE p.product_id END,
                   CASE WHEN p.no_title THEN NULL ELSE p.title END, CASE WHEN p.no_price THEN NULL ELSE p.price END,
                   p.updated_at
            FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[], $5::text[], $6::bool[], $7::int8[], $8::bool[],
                        $9::timestamptz[])
                 AS p(post_id, seller_id, product_id, no_product, title, no_title, price, no_price, updated_at)
            WHERE \(condition)
            ON CONFLICT (post_id) DO UPDATE
            SET seller_id = EXCLUDED.seller_id, product_id = EXCLUDED.product_id, title = EXCLUDED.title,
                price = EXCLUDED.price, updated_at = EXCLUDED.updated_at
            WHERE products.deleted_at IS NULL AND products.updated_at <= EXCLUDED.updated_at
            """)
    }
    static let bindingDataTypes: [PostgresDataType] = [
        .textArray, .textArray, .textArray, .boolArray, .textArray, .boolArray, .int8Array, .boolArray,
        .timestamptzArray,
    ]

    let posts: [PostSnapshot]

    func appendBindings(to bindings: inout PostgresBindings) throws {
        bindings.append(posts.map(\.postId))
        bindings.append(posts.map(\.userId))
        bindings.append(posts.map { $0.productId ?? "" })
        bindings.append(posts.map { $0.productId == nil })
        bindings.append(posts.map { $0.title ?? "" })
        bindings.append(posts.map { $0.title == nil })
        bindings.append(posts.map { Int64($0.price ?? 0) })
        bindings.append(posts.map { $0.price == nil })
        bindings.append(posts.map(\.updatedAt))
    }
}
