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
    /// Pages run as one row of joined JSON with the reader's account check (`ReaderCheckedList`).
    static let first = "9223372036854775807, 11, 'plan_app3'"
    static let appCases: [(name: String, sql: String, index: String, arguments: String)] = [
        ("app", G2AllPostsPage.listSQL, "posts_app_idx", first + ", 'plan_reader'"),
        (
            "app and category", G2CategoryPostsPage.listSQL, "posts_app_product_idx",
            first + ", 'plan_c7', 'plan_reader'"
        ),
        (
            "title search", G2TitleSearchPage.listSQL, "posts_title_grams_idx",
            first + ", '모임', NULL::text, 'plan_reader'"
        ),
    ]
    /// 20 000 posts of ten apps, half with a place around Seoul, titles of Hangul words.
    static let g2Posts = """
        INSERT INTO posts.posts (post_id, user_id, product_id, app_id, title, latitude, longitude,
                                 created_at, updated_at)
        SELECT 'plan' || g, 'plan_u' || (g % 200), 'plan_c' || (g % 20), 'plan_app' || (g % 10),
               (ARRAY['보드게임 모임', '주말 산책', '맛집 탐방', '스터디 모임'])[1 + g % 4] || ' ' || g,
               CASE WHEN g % 2 = 0 THEN 37.3 + (g % 997) / 2000.0 END,
               CASE WHEN g % 2 = 0 THEN 126.7 + (g % 991) / 1700.0 END, now(), now()
        FROM generate_series(1, 20000) g
        """

    @Test func theAppListsTitleSearchAndNearbySearchUseTheirIndexes() async throws {
        let nearby = "37.55, 126.98, 3000, 'plan_app3', 21, NULL::text, NULL::float8, NULL::int8"
        try await expectIndexes(
            Self.appCases + [
                // The nearest-neighbour order of the place index, not a sort of the app's posts.
                ("nearest first", NearestFirst.sql, "Index Scan using posts_place_idx", nearby),
                ("farthest first", FarthestFirst.sql, "posts_place_idx", nearby),
                ("newest first nearby", NewestFirst.sql, "posts_place_idx", nearby),
            ], seed: [Self.g2Posts]
        ) { _, plans in
            #expect(plans["nearest first"]?.contains("Order By") == true, "\(plans["nearest first"] ?? "")")
            GenericPlans.print(plans)
        }
    }

    /// Migration 110: the app lists' and title search's indexes hold G2 posts only. With as many G0/G1 posts (no app)
    /// beside the G2 ones, the G2 statements still find their posts on those indexes.
    @Test func theAppIndexesHoldG2PostsOnlyAndStillServeTheirLists() async throws {
        try await expectIndexes(
            Self.appCases,
            seed: [
                Self.g2Posts,
                """
                INSERT INTO posts.posts (post_id, user_id, product_id, title, created_at, updated_at)
                SELECT 'plan_g1_' || g, 'plan_u' || (g % 200), 'plan_c' || (g % 20), '모임 ' || g, now(), now()
                FROM generate_series(1, 20000) g
                """,
            ]
        ) { api, _ in
            let partial = try await api.platform.postgres.client.query(
                """
                SELECT count(*)::int FROM pg_indexes
                WHERE schemaname = 'posts' AND indexdef LIKE '%WHERE (app_id IS NOT NULL)'
                  AND indexname IN ('posts_app_idx', 'posts_app_product_idx', 'posts_title_grams_idx')
                """, logger: TestEnvironment.logger
            ).decode(Int.self).collect()
            #expect(partial == [3], "the three G2 indexes leave out posts without an app")
        }
    }

    /// Seeds (in a rolled-back transaction), plans every case generically, and expects each on its index and none on a
    /// sequential scan of the posts; then `more` with the plans by name.
    private func expectIndexes(
        _ cases: [(name: String, sql: String, index: String, arguments: String)], seed: [String],
        more: @Sendable (PostsClient, [String: String]) async throws -> Void
    ) async throws {
        try await withPostsService { api in
            let plans = try await GenericPlans.explain(
                on: api.platform.postgres.client, seed: seed, analyze: ["posts.posts"],
                statements: cases.map { ($0.name, $0.sql, $0.arguments) })
            for (name, _, index, _) in cases {
                let plan = try #require(plans[name])
                #expect(plan.contains(index), "\(name) should use \(index):\n\(plan)")
                #expect(!plan.contains("Seq Scan on posts"), "\(name):\n\(plan)")
            }
            try await more(api, plans)
        }
    }
}
