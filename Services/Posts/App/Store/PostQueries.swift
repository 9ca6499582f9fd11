import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// The read side: every list picks one page of post ids with a backward index scan (the `page` CTE, at most
/// `limit + 1` rows, so we know whether there is a next page), then `assembly` turns those ids into §3.1
/// posts in the same round trip. Content of withdrawn users (posts, comments, likes) never appears.
///
/// Optional filters are written `(\(x)::text IS NULL OR column = \(x))`: the statements are unnamed, so
/// PostgreSQL plans them with the bound values and folds the unused branch away; `QueryPlanTests` checks
/// that each list is an index scan.
struct PostQueries: Sendable {
    let client: PostgresClient

    struct Result: Sendable {
        var posts: [PostJSON]
        var nextCursor: String
    }

    /// Which list, with its filters.
    enum List: Sendable {
        case all(productId: String?)
        case byUser(userId: String, productId: String?)
        case byHashtag(tag: String, productId: String?)
        case liked(userId: String, kind: LikeKind, productId: String?)
        case following(userId: String, productId: String?)
    }

    func one(postId: String, logger: Logger) async throws -> PostJSON? {
        try await decode(try await client.query(Self.assembled(Self.onePage(postId)), logger: logger)).first?.post
    }

    /// The same, inside the caller's transaction (create and update answer with what they committed).
    func one(postId: String, on connection: PostgresConnection, logger: Logger) async throws -> PostJSON? {
        try await decode(try await connection.query(Self.assembled(Self.onePage(postId)), logger: logger)).first?.post
    }

    static func onePage(_ postId: String) -> PostgresQuery {
        "SELECT post_id, seq AS position FROM posts.posts WHERE post_id = \(postId) AND NOT author_withdrawn"
    }

    func list(_ list: List, page: Page, logger: Logger) async throws -> Result {
        guard !page.isPastEnd else { return Result(posts: [], nextCursor: Cursor.end) }
        let rows = try await decode(try await client.query(Self.assembled(Self.pageQuery(list, page: page)), logger: logger))
        let shown = rows.prefix(page.limit)
        return Result(posts: shown.map(\.post), nextCursor: page.nextCursor(fetched: rows.count, lastPosition: shown.last?.position))
    }

    /// The page of `(post_id, position)` rows: at most `limit + 1`, strictly before the cursor, newest first.
    static func pageQuery(_ list: List, page: Page) -> PostgresQuery {
        switch list {
        case .all(let productId):
            return """
                SELECT p.post_id, p.seq AS position FROM posts.posts p
                WHERE NOT p.author_withdrawn AND p.seq < \(page.before)
                  AND (\(productId)::text IS NULL OR p.product_id = \(productId))
                ORDER BY p.seq DESC LIMIT \(page.limit + 1)
                """
        case .byUser(let userId, let productId):
            return """
                SELECT p.post_id, p.seq AS position FROM posts.posts p
                WHERE p.user_id = \(userId) AND NOT p.author_withdrawn AND p.seq < \(page.before)
                  AND (\(productId)::text IS NULL OR p.product_id = \(productId))
                ORDER BY p.seq DESC LIMIT \(page.limit + 1)
                """
        case .byHashtag(let tag, let productId):
            return """
                SELECT h.post_id, h.seq AS position FROM posts.post_hashtags h
                JOIN posts.posts p ON p.post_id = h.post_id AND NOT p.author_withdrawn
                WHERE h.tag = \(tag) AND h.seq < \(page.before)
                  AND (\(productId)::text IS NULL OR h.product_id = \(productId))
                ORDER BY h.seq DESC LIMIT \(page.limit + 1)
                """
        case .liked(let userId, let kind, let productId):
            // Most recently liked first.
            return """
                SELECT l.post_id, l.seq AS position FROM posts.likes l
                JOIN posts.posts p ON p.post_id = l.post_id AND NOT p.author_withdrawn
                WHERE l.user_id = \(userId) AND l.kind = \(kind.code) AND l.seq < \(page.before)
                  AND (\(productId)::text IS NULL OR p.product_id = \(productId))
                ORDER BY l.seq DESC LIMIT \(page.limit + 1)
                """
        case .following(let userId, let productId):
            // One bounded index probe per followee, merged.
            return """
                SELECT fp.post_id, fp.position FROM posts.follows f
                CROSS JOIN LATERAL (
                    SELECT p.post_id, p.seq AS position FROM posts.posts p
                    WHERE p.user_id = f.followee_id AND NOT p.author_withdrawn AND p.seq < \(page.before)
                      AND (\(productId)::text IS NULL OR p.product_id = \(productId))
                    ORDER BY p.seq DESC LIMIT \(page.limit + 1)
                ) fp
                WHERE f.follower_id = \(userId)
                ORDER BY fp.position DESC LIMIT \(page.limit + 1)
                """
        }
    }

    /// `WITH page AS (<page query>) <assembly>`: the page's binds stay as they are.
    static func assembled(_ page: PostgresQuery) -> PostgresQuery {
        var query = page
        query.sql = "WITH page AS (\n\(page.sql)\n)\n\(assembly)"
        return query
    }

    private func decode(_ rows: PostgresRowSequence) async throws -> [(post: PostJSON, position: Int64)] {
        var result: [(post: PostJSON, position: Int64)] = []
        let decoder = APIJSON.decoder()
        for try await row in rows.decode(
            (String, String?, String?, String?, String?, String?, String?, String?, String?, Int?, Date,
             String, String, String?, [String], [String], [String], [String], [String], String, Int64).self)
        {
            let comments = try decoder.decode([CommentJSON].self, from: Data(row.19.utf8))
            let post = PostJSON(
                postId: row.0, productId: row.1, title: row.2, content: row.3, content1: row.4, content2: row.5,
                content3: row.6, content4: row.7, content5: row.8, price: row.9, createdAt: row.10,
                creator: CreatorJSON(userId: row.11, nick: row.12, profileImage: row.13),
                files: row.14, likes: row.16, likes2: row.17, buyers: row.18, hashTags: row.15, comments: comments)
            result.append((post, row.20))
        }
        return result
    }

    /// Turns the `page` CTE (post_id, position) into posts, ordered by position, newest first.
    static let assembly = """
        SELECT p.post_id, p.product_id, p.title, p.content, p.content1, p.content2, p.content3, p.content4, p.content5,
               p.price, p.created_at, p.user_id, coalesce(u.nick, ''), u.profile_image, p.files, p.hash_tags,
               ARRAY(SELECT l.user_id FROM posts.likes l LEFT JOIN posts.users lu ON lu.user_id = l.user_id
                     WHERE l.post_id = p.post_id AND l.kind = 1 AND lu.withdrawn_at IS NULL ORDER BY l.seq) AS likes,
               ARRAY(SELECT l.user_id FROM posts.likes l LEFT JOIN posts.users lu ON lu.user_id = l.user_id
                     WHERE l.post_id = p.post_id AND l.kind = 2 AND lu.withdrawn_at IS NULL ORDER BY l.seq) AS likes2,
               ARRAY(SELECT b.user_id FROM posts.buyers b LEFT JOIN posts.users bu ON bu.user_id = b.user_id
                     WHERE b.post_id = p.post_id AND bu.withdrawn_at IS NULL ORDER BY b.seq) AS buyers,
               (SELECT coalesce(json_agg(json_build_object(
                           'comment_id', c.comment_id, 'content', c.content,
                           'createdAt', to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                           'creator', json_build_object('user_id', c.user_id, 'nick', coalesce(cu.nick, ''),
                                                        'profileImage', cu.profile_image))
                       ORDER BY c.seq DESC), '[]')::text
                FROM posts.comments c LEFT JOIN posts.users cu ON cu.user_id = c.user_id
                WHERE c.post_id = p.post_id AND cu.withdrawn_at IS NULL) AS comments,
               page.position
        FROM page
        JOIN posts.posts p ON p.post_id = page.post_id
        LEFT JOIN posts.users u ON u.user_id = p.user_id
        ORDER BY page.position DESC
        """
}
