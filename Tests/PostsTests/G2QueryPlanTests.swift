import Foundation
import Logging
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import PostsService

/// The G2 statements (decision 0021) are index scans as **generic** plans, like `QueryPlanTests`: inside a rolled-back
/// transaction, 20 000 posts of ten apps (half with a place around Seoul, titles of Hangul words), statistics, then
/// `EXPLAIN` of each prepared statement with `plan_cache_mode = force_generic_plan`.
@Suite("G2 query plans")
struct G2QueryPlanTests {
    struct Rollback: Error {}

    @Test func theAppListsTitleSearchAndNearbySearchUseTheirIndexes() async throws {
        try await withPostsService { api in
            let postgres = api.platform.postgres
            let logger = TestEnvironment.logger
            let page = Page(before: .max, limit: 10)
            let nearby = "37.55, 126.98, 3000, 'plan_app3', 21, NULL::text, NULL::float8, NULL::int8"
            let cases: [(String, any Sendable.Type, String, String, String)] = [
                (
                    "app", G2AllPostsPage.self, G2AllPostsPage.sql, "posts_app_idx",
                    "9223372036854775807, 11, 'plan_app3'"
                ),
                (
                    "app and category", G2CategoryPostsPage.self, G2CategoryPostsPage.sql, "posts_app_product_idx",
                    "9223372036854775807, 11, 'plan_app3', 'plan_c7'"
                ),
                (
                    "title search", G2TitleSearchPage.self, G2TitleSearchPage.sql, "posts_title_grams_idx",
                    "9223372036854775807, 11, 'plan_app3', '모임', NULL::text"
                ),
                // The nearest-neighbour order of the place index, not a sort of the app's posts.
                ("nearest first", NearestFirst.self, NearestFirst.sql, "Index Scan using posts_place_idx", nearby),
                ("farthest first", FarthestFirst.self, FarthestFirst.sql, "posts_place_idx", nearby),
                ("newest first nearby", NewestFirst.self, NewestFirst.sql, "posts_place_idx", nearby),
            ]
            _ = page
            let plans = PlanBox()
            do {
                try await postgres.transaction(logger: logger, timeout: .seconds(600)) { connection in
                    try await connection.query("SET LOCAL search_path TO posts, public", logger: logger)
                    try await connection.query(
                        """
                        INSERT INTO posts.posts (post_id, user_id, product_id, app_id, title, latitude, longitude,
                                                 created_at, updated_at)
                        SELECT 'plan' || g, 'plan_u' || (g % 200), 'plan_c' || (g % 20), 'plan_app' || (g % 10),
                               (ARRAY['보드게임 모임', '주말 산책', '맛집 탐방', '스터디 모임'])[1 + g % 4] || ' ' || g,
                               CASE WHEN g % 2 = 0 THEN 37.3 + (g % 997) / 2000.0 END,
                               CASE WHEN g % 2 = 0 THEN 126.7 + (g % 991) / 1700.0 END, now(), now()
                        FROM generate_series(1, 20000) g
                        """, logger: logger)
                    try await connection.query("ANALYZE posts.posts", logger: logger)
                    try await connection.query("SET LOCAL plan_cache_mode = force_generic_plan", logger: logger)
                    for (name, _, sql, _, arguments) in cases {
                        try await connection.query(
                            PostgresQuery(unsafeSQL: "PREPARE plan_check AS \(sql)"), logger: logger)
                        var lines: [String] = []
                        let explain = PostgresQuery(unsafeSQL: "EXPLAIN EXECUTE plan_check(\(arguments))")
                        for try await line in try await connection.query(explain, logger: logger).decode(String.self) {
                            lines.append(line)
                        }
                        try await connection.query("DEALLOCATE plan_check", logger: logger)
                        plans.set(name, lines.joined(separator: "\n"))
                    }
                    throw Rollback()
                }
            } catch is Rollback {}
            for (name, _, _, index, _) in cases {
                let plan = try #require(plans.get(name))
                #expect(plan.contains(index), "\(name) should use \(index):\n\(plan)")
                #expect(!plan.contains("Seq Scan on posts"), "\(name):\n\(plan)")
                #expect(name != "nearest first" || plan.contains("Order By"), "\(name):\n\(plan)")
            }
            print(plans.all.sorted { $0.key < $1.key }.map { "-- \($0.key)\n\($0.value)" }.joined(separator: "\n\n"))
        }
    }
}
