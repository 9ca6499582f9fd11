import Foundation
import Logging
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Synchronization
import Testing

@testable import PostsService

/// Every list query is served by an index (contract §10.4, issue 3). Inside a transaction that is rolled back,
/// the tables get 20 000 posts (with hashtags, likes and follows), statistics are refreshed, and each
/// list's page query is `EXPLAIN`ed with real bound values, exactly as the service sends it.
@Suite("Query plans")
struct QueryPlanTests {
    struct Rollback: Error {}

    @Test func everyListIsAnIndexScan() async throws {
        try await withPostsService { api in
            let postgres = api.platform.postgres
            let logger = TestEnvironment.logger
            let page = Page(before: .max, limit: 10)
            let cases: [(String, PostQueries.List, String)] = [
                ("all", .all(productId: nil), "posts_all_idx"),
                ("all by product", .all(productId: "plan_p3"), "posts_product_idx"),
                ("by user", .byUser(userId: "plan_u7", productId: nil), "posts_user_idx"),
                ("by user and product", .byUser(userId: "plan_u7", productId: "plan_p7"), "posts_user_product_idx"),
                ("hashtag", .byHashtag(tag: "plan_t5", productId: nil), "post_hashtags_tag_idx"),
                ("hashtag and product", .byHashtag(tag: "plan_t5", productId: "plan_p5"), "post_hashtags_tag_product_idx"),
                ("likes/me", .liked(userId: "plan_u7", kind: .like, productId: nil), "likes_mine_idx"),
                ("following", .following(userId: "plan_u1", productId: nil), "posts_user_idx"),
            ]
            let plans = PlanBox()
            do {
                try await postgres.transaction(logger: logger) { connection in
                    try await connection.query("""
                        INSERT INTO posts.posts (post_id, user_id, product_id, created_at, updated_at)
                        SELECT 'plan' || g, 'plan_u' || (g % 200), 'plan_p' || (g % 100), now(), now() FROM generate_series(1, 20000) g
                        """, logger: logger)
                    try await connection.query("""
                        INSERT INTO posts.post_hashtags (tag, post_id, seq, product_id)
                        SELECT 'plan_t' || (p.seq % 500), p.post_id, p.seq, p.product_id FROM posts.posts p WHERE p.post_id LIKE 'plan%'
                        """, logger: logger)
                    try await connection.query("""
                        INSERT INTO posts.likes (post_id, kind, user_id, created_at)
                        SELECT p.post_id, 1, 'plan_u' || (p.seq % 200), now() FROM posts.posts p WHERE p.post_id LIKE 'plan%'
                        """, logger: logger)
                    try await connection.query("""
                        INSERT INTO posts.follows (follower_id, followee_id) SELECT 'plan_u1', 'plan_u' || g FROM generate_series(2, 11) g
                        """, logger: logger)
                    try await connection.query("""
                        INSERT INTO posts.follows (follower_id, followee_id)
                        SELECT 'plan_f' || g, 'plan_u' || (g % 200) FROM generate_series(1, 5000) g
                        """, logger: logger)
                    try await connection.query("ANALYZE posts.posts", logger: logger)
                    try await connection.query("ANALYZE posts.post_hashtags", logger: logger)
                    try await connection.query("ANALYZE posts.likes", logger: logger)
                    try await connection.query("ANALYZE posts.follows", logger: logger)
                    for (name, list, _) in cases {
                        var query = PostQueries.pageQuery(list, page: page)
                        query.sql = "EXPLAIN " + query.sql
                        var lines: [String] = []
                        for try await line in try await connection.query(query, logger: logger).decode(String.self) { lines.append(line) }
                        plans.set(name, lines.joined(separator: "\n"))
                    }
                    throw Rollback()
                }
            } catch is Rollback {}
            for (name, _, index) in cases {
                let plan = try #require(plans.get(name))
                #expect(plan.contains(index), "\(name) should use \(index):\n\(plan)")
                #expect(!plan.contains("Seq Scan on posts"), "\(name):\n\(plan)")
                #expect(!plan.contains("Seq Scan on post_hashtags") && !plan.contains("Seq Scan on likes") && !plan.contains("Seq Scan on follows"), "\(name):\n\(plan)")
            }
            print(plans.all.sorted { $0.key < $1.key }.map { "-- \($0.key)\n\($0.value)" }.joined(separator: "\n\n"))
        }
    }
}

/// Collects plans out of the transaction closure.
final class PlanBox: Sendable {
    private let storage = Mutex<[String: String]>([:])
    func set(_ name: String, _ plan: String) { storage.withLock { $0[name] = plan } }
    func get(_ name: String) -> String? { storage.withLock { $0[name] } }
    var all: [String: String] { storage.withLock { $0 } }
}
