import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// Rankings computed at read time from the projected activity (likes, comments, posts) inside the window:
/// score = Σ weight × 2^(−age / half-life). Always as fresh as the projection (events are applied within
/// milliseconds of publication), and rebuilt exactly by a replay, since it is a pure function of the rows.
/// Bounded by the window (index on `(product_id, time)` of each activity table) and by `limit`.
/// Activity of withdrawn users and on deleted posts does not count.
struct RankingQueries: Sendable {
    let client: DatabasePool
    let schema: SQLIdentifier

    struct PostRank: Encodable, Sendable, Equatable {
        var postId: String
        var userId: String
        var score: Double
        var likes: Int
        var comments: Int
        enum CodingKeys: String, CodingKey { case postId = "post_id", userId = "user_id", score, likes, comments }
    }

    struct UserRank: Encodable, Sendable, Equatable {
        var userId: String
        var nick: String
        var profileImage: String?
        var score: Double
        enum CodingKeys: String, CodingKey { case userId = "user_id", nick, profileImage, score }
    }

    struct HashtagRank: Encodable, Sendable, Equatable {
        var hashTag: String
        var score: Double
        var postCount: Int
    }

    private func decay(_ window: RankingWindow) -> String {
        // Bound values cannot be spliced into a static fragment, so the half-life (a constant per window) is
        // written as a literal; the time values are bound.
        "exp(-ln(2) * extract(epoch FROM (now_at - e.at)) / \(window.halfLifeSeconds))"
    }

    func posts(productId: String?, window: RankingWindow, limit: Int, asOf: Date = Date(), logger: Logger) async throws
        -> [PostRank]
    {
        let s = schema
        let since = asOf.addingTimeInterval(-window.seconds)
        let query: PostgresQuery = """
            WITH e AS (SELECT a.*, \(asOf)::timestamptz AS now_at FROM \(table: s, "ranking_activity")(\(productId), \(since), \(asOf)) a)
            SELECT e.post_id, p.user_id, round(sum(e.weight * \(unescaped: decay(window)))::numeric, 4)::float8 AS score,
                   count(*) FILTER (WHERE e.kind = 'like')::int, count(*) FILTER (WHERE e.kind = 'comment')::int
            FROM e JOIN \(table: s, "posts") p ON p.post_id = e.post_id AND p.deleted_at IS NULL
            JOIN \(table: s, "users") u ON u.user_id = p.user_id AND u.withdrawn_at IS NULL
            WHERE e.kind <> 'post'
            GROUP BY e.post_id, p.user_id
            ORDER BY score DESC, e.post_id LIMIT \(limit)
            """
        var result: [PostRank] = []
        for try await row in try await client.query(query, logger: logger).decode(
            (String, String, Double, Int, Int).self)
        {
            result.append(PostRank(postId: row.0, userId: row.1, score: row.2, likes: row.3, comments: row.4))
        }
        return result
    }

    /// Authors ranked by what their posts received (likes, comments) and by what they wrote (posts).
    func users(productId: String?, window: RankingWindow, limit: Int, asOf: Date = Date(), logger: Logger) async throws
        -> [UserRank]
    {
        let s = schema
        let since = asOf.addingTimeInterval(-window.seconds)
        let query: PostgresQuery = """
            WITH e AS (SELECT a.*, \(asOf)::timestamptz AS now_at FROM \(table: s, "ranking_activity")(\(productId), \(since), \(asOf)) a)
            SELECT u.user_id, u.nick, u.profile_image, round(sum(e.weight * \(unescaped: decay(window)))::numeric, 4)::float8 AS score
            FROM e JOIN \(table: s, "posts") p ON p.post_id = e.post_id AND p.deleted_at IS NULL
            JOIN \(table: s, "users") u ON u.user_id = e.post_user_id AND u.withdrawn_at IS NULL
            GROUP BY u.user_id, u.nick, u.profile_image
            ORDER BY score DESC, u.user_id LIMIT \(limit)
            """
        var result: [UserRank] = []
        for try await row in try await client.query(query, logger: logger).decode(
            (String, String, String?, Double).self)
        {
            result.append(UserRank(userId: row.0, nick: row.1, profileImage: row.2, score: row.3))
        }
        return result
    }

    /// Hashtags ranked by the activity on the posts carrying them (matched case-insensitively; shown in the
    /// most used spelling).
    func hashtags(productId: String?, window: RankingWindow, limit: Int, asOf: Date = Date(), logger: Logger)
        async throws -> [HashtagRank]
    {
        let s = schema
        let since = asOf.addingTimeInterval(-window.seconds)
        let query: PostgresQuery = """
            WITH e AS (SELECT a.*, \(asOf)::timestamptz AS now_at FROM \(table: s, "ranking_activity")(\(productId), \(since), \(asOf)) a)
            SELECT mode() WITHIN GROUP (ORDER BY t.tag), round(sum(e.weight * \(unescaped: decay(window)))::numeric, 4)::float8 AS score,
                   count(DISTINCT p.post_id)::int
            FROM e JOIN \(table: s, "posts") p ON p.post_id = e.post_id AND p.deleted_at IS NULL
            JOIN \(table: s, "users") u ON u.user_id = p.user_id AND u.withdrawn_at IS NULL
            CROSS JOIN LATERAL unnest(p.hash_tags) AS t(tag)
            GROUP BY lower(t.tag)
            ORDER BY score DESC, lower(t.tag) LIMIT \(limit)
            """
        var result: [HashtagRank] = []
        for try await row in try await client.query(query, logger: logger).decode((String, Double, Int).self) {
            result.append(HashtagRank(hashTag: row.0, score: row.1, postCount: row.2))
        }
        return result
    }
}
