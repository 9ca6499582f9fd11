import Foundation
import Logging
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Synchronization
import Testing

@testable import PostsService

/// Every list query is served by an index (API conventions §10.4, issue 3). Inside a transaction that is rolled back,
/// the tables get 20 000 posts (with hashtags, 4 000 likes and 410 follows, fanned out into ~41 000 feed entries
/// by the triggers: each row written here runs them too, so the volumes are what the plans need, no more),
/// statistics are refreshed, and each list's page statement — the SQL the service prepares — is `EXPLAIN`ed as a **generic** plan (what PostgreSQL
/// caches for a prepared statement), so the index must be chosen without knowing the values.
@Suite("Query plans")
struct QueryPlanTests {
    @Test func everyListIsAnIndexScan() async throws {
        try await withPostsService { api in
            let page = Page(before: .max, limit: 10)
            let cases: [(String, PostQueries.List, String, String)] = [
                ("all", .all(productId: nil), "posts_all_idx", ""),
                ("all by product", .all(productId: "plan_p3"), "posts_product_idx", ", 'plan_p3'"),
                ("by user", .byUser(userId: "plan_u7", productId: nil), "posts_user_idx", ", 'plan_u7'"),
                (
                    "by user and product", .byUser(userId: "plan_u7", productId: "plan_p7"), "posts_user_product_idx",
                    ", 'plan_u7', 'plan_p7'"
                ),
                ("hashtag", .byHashtag(tag: "plan_t5", productId: nil), "post_hashtags_tag_idx", ", 'plan_t5'"),
                (
                    "hashtag and product", .byHashtag(tag: "plan_t5", productId: "plan_p5"),
                    "post_hashtags_tag_product_idx", ", 'plan_t5', 'plan_p5'"
                ),
                (
                    "likes/me", .liked(userId: "plan_u7", kind: .like, productId: nil), "likes_mine_idx",
                    ", 'plan_u7', 1"
                ),
                (
                    "likes-2/me by product", .liked(userId: "plan_u7", kind: .like2, productId: "plan_p7"),
                    "likes_mine_idx", ", 'plan_u7', 2, 'plan_p7'"
                ),
                ("following", .following(userId: "plan_u1", productId: nil), "feed_entries_pkey", ", 'plan_u1'"),
                (
                    "following by product", .following(userId: "plan_u1", productId: "plan_p3"),
                    "feed_entries_product_idx", ", 'plan_u1', 'plan_p3'"
                ),
            ]
            let plans = try await GenericPlans.explain(
                on: api.platform.postgres.client,
                seed: [
                    """
                    INSERT INTO posts.posts (post_id, user_id, product_id, created_at, updated_at)
                    SELECT 'plan' || g, 'plan_u' || (g % 200), 'plan_p' || (g % 100), now(), now() FROM generate_series(1, 20000) g
                    """,
                    """
                    INSERT INTO posts.post_hashtags (tag, post_id, seq, product_id)
                    SELECT 'plan_t' || (p.seq % 500), p.post_id, p.seq, p.product_id FROM posts.posts p WHERE p.post_id LIKE 'plan%'
                    """,
                    """
                    INSERT INTO posts.likes (post_id, kind, user_id, created_at)
                    SELECT p.post_id, 1, 'plan_u' || (p.seq % 200), now() FROM posts.posts p WHERE p.post_id LIKE 'plan%' AND p.seq % 5 = 0
                    """,
                    """
                    INSERT INTO posts.follows (follower_id, followee_id) SELECT 'plan_u1', 'plan_u' || g FROM generate_series(2, 11) g
                    """,
                    """
                    INSERT INTO posts.follows (follower_id, followee_id)
                    SELECT 'plan_f' || g, 'plan_u' || (g % 200) FROM generate_series(1, 400) g
                    """,
                ],
                analyze: ["posts.posts", "posts.post_hashtags", "posts.likes", "posts.follows", "posts.feed_entries"],
                // The statements the service runs: the page with the reader's account check, as one row of joined
                // JSON (G1, G2: `ReaderCheckedList`) and as rows (G0: `ReaderCheckedPage`).
                statements: cases.flatMap { name, list, _, arguments in
                    let sql = PostQueries.route(list, page: page).0
                    let values = "9223372036854775807, 11\(arguments), 'plan_reader'"
                    return [(name, sql.listSQL, values), (name + " (rows)", sql.checkedSQL, values)]
                })
            for (name, _, index, _) in cases.flatMap({ [$0, ($0.0 + " (rows)", $0.1, $0.2, $0.3)] }) {
                let plan = try #require(plans[name])
                #expect(plan.contains(index), "\(name) should use \(index):\n\(plan)")
                #expect(!plan.contains("Seq Scan on posts"), "\(name):\n\(plan)")
                // The joined list keeps the page's order as a nested loop over the check and the window over the
                // page, with no sort above the window (`ReaderCheckedList`); the page's own plan may sort.
                #expect(plan.contains("Nested Loop Left Join"), "\(name):\n\(plan)")
                if !name.hasSuffix("(rows)") {
                    let aboveTheWindow = plan.components(separatedBy: "WindowAgg").first ?? plan
                    #expect(plan.contains("WindowAgg") && !aboveTheWindow.contains("Sort"), "\(name):\n\(plan)")
                }
                #expect(
                    !plan.contains("Seq Scan on post_hashtags") && !plan.contains("Seq Scan on likes")
                        && !plan.contains("Seq Scan on follows")
                        && !plan.contains("Seq Scan on feed_entries"), "\(name):\n\(plan)")
            }
            // Feed entries and hashtag rows find their posts by `seq` (an 8-byte key) on the partial index of
            // visible posts, not by the text `post_id`.
            for name in ["following", "following by product", "hashtag", "hashtag and product"] {
                let plan = try #require(plans[name])
                #expect(plan.contains("Index Scan using posts_all_idx on posts p"), "\(name):\n\(plan)")
            }
            GenericPlans.print(plans)
        }
    }
}

/// `EXPLAIN` of prepared statements as **generic** plans (what PostgreSQL caches for a prepared statement, so an
/// index must be chosen without knowing the values), on seeded tables, in a transaction that is rolled back.
enum GenericPlans {
    struct Rollback: Error {}

    /// Runs `seed` (search path `posts, public`), `ANALYZE`s `analyze`, then prepares and explains each statement
    /// with its arguments; returns the plans by name.
    static func explain(
        on postgres: PostgresClient, seed: [String], analyze: [String],
        statements: [(name: String, sql: String, arguments: String)]
    ) async throws -> [String: String] {
        let logger = TestEnvironment.logger
        let plans = Mutex<[String: String]>([:])
        do {
            // Seeding on a busy machine can take long: the timeout is a hang guard, not a performance bar.
            try await postgres.transaction(logger: logger, timeout: .seconds(600)) { connection in
                // The service's pool looks names up in its schema first; this one is the test platform's.
                try await connection.query("SET LOCAL search_path TO posts, public", logger: logger)
                for sql in seed { try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) }
                for table in analyze {
                    try await connection.query(PostgresQuery(unsafeSQL: "ANALYZE \(table)"), logger: logger)
                }
                try await connection.query("SET LOCAL plan_cache_mode = force_generic_plan", logger: logger)
                for (name, sql, arguments) in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: "PREPARE plan_check AS \(sql)"), logger: logger)
                    let explain = PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE plan_check(\(arguments))")
                    var lines: [String] = []
                    for try await line in try await connection.query(explain, logger: logger).decode(String.self) {
                        lines.append(line)
                    }
                    try await connection.query("DEALLOCATE plan_check", logger: logger)
                    plans.withLock { $0[name] = lines.joined(separator: "\n") }
                }
                throw Rollback()
            }
        } catch is Rollback {}
        return plans.withLock { $0 }
    }

    static func print(_ plans: [String: String]) {
        Swift.print(plans.sorted { $0.key < $1.key }.map { "-- \($0.key)\n\($0.value)" }.joined(separator: "\n\n"))
    }
}
