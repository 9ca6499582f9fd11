import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// The read side: every list picks one page of post ids with a backward index scan (the `page` CTE, at most
/// `limit + 1` rows, so we know whether there is a next page), then `assembly` turns those ids into §3.1
/// posts in the same round trip. Content of withdrawn users (posts, comments, likes) never appears.
///
/// Every statement is a named prepared statement (`AssembledPosts<Page>`), one per list and filter
/// combination: planning this query costs more than running it (measured with pgbench: 1 445 tps unnamed vs
/// 4 983 tps prepared, bench/results/2026-11-22-posts-feed.md). Each variant spells its own filters, so the
/// cached generic plan still uses the right index; `QueryPlanTests` checks the generic plans.
struct PostQueries: Sendable {
    let client: PostgresClient

    struct Result: Sendable {
        var posts: [PostJSONText]
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

    func one(postId: String, logger: Logger) async throws -> PostJSONText? {
        try await client.execute(AssembledPosts<OnePostPage>(bindings: Self.bindings(postId)), logger: logger)
            .collect().first.map(Self.post)
    }

    /// The same, inside the caller's transaction (create and update answer with what they committed).
    func one(postId: String, on connection: PostgresConnection, logger: Logger) async throws -> PostJSONText? {
        try await connection.execute(AssembledPosts<OnePostPage>(bindings: Self.bindings(postId)), logger: logger)
            .collect().first.map(Self.post)
    }

    func list(_ list: List, page: Page, logger: Logger) async throws -> Result {
        guard !page.isPastEnd else { return Result(posts: [], nextCursor: Cursor.end) }
        let (variant, bindings) = Self.route(list, page: page)
        let rows = try await run(variant, bindings: bindings, logger: logger)
        let shown = rows.prefix(page.limit)
        return Result(posts: shown.map(Self.post), nextCursor: page.nextCursor(fetched: rows.count, lastPosition: shown.last?.position))
    }

    private func run<P: PageSQL>(_: P.Type, bindings: PostgresBindings, logger: Logger) async throws -> [PostRow] {
        try await client.execute(AssembledPosts<P>(bindings: bindings), logger: logger).collect()
    }

    /// The page statement for a list and its bindings: `$1` position bound, `$2` row count, then the filters.
    static func route(_ list: List, page: Page) -> (any PageSQL.Type, PostgresBindings) {
        var bindings = PostgresBindings()
        bindings.append(page.before)
        bindings.append(Int64(page.limit + 1))
        switch list {
        case .all(nil):
            return (AllPostsPage.self, bindings)
        case .all(let productId?):
            bindings.append(productId)
            return (AllPostsOfProductPage.self, bindings)
        case .byUser(let userId, nil):
            bindings.append(userId)
            return (UserPostsPage.self, bindings)
        case .byUser(let userId, let productId?):
            bindings.append(userId)
            bindings.append(productId)
            return (UserPostsOfProductPage.self, bindings)
        case .byHashtag(let tag, nil):
            bindings.append(tag)
            return (HashtagPostsPage.self, bindings)
        case .byHashtag(let tag, let productId?):
            bindings.append(tag)
            bindings.append(productId)
            return (HashtagPostsOfProductPage.self, bindings)
        case .liked(let userId, let kind, nil):
            bindings.append(userId)
            bindings.append(kind.code)
            return (LikedPostsPage.self, bindings)
        case .liked(let userId, let kind, let productId?):
            bindings.append(userId)
            bindings.append(kind.code)
            bindings.append(productId)
            return (LikedPostsOfProductPage.self, bindings)
        case .following(let userId, nil):
            bindings.append(userId)
            return (FollowingPostsPage.self, bindings)
        case .following(let userId, let productId?):
            bindings.append(userId)
            bindings.append(productId)
            return (FollowingPostsOfProductPage.self, bindings)
        }
    }

    static func bindings(_ values: String...) -> PostgresBindings {
        var bindings = PostgresBindings()
        for value in values { bindings.append(value) }
        return bindings
    }

    static func post(_ row: PostRow) -> PostJSONText { row.post }

    /// Decodes one assembled row.
    static func decodeRow(_ row: PostgresRow) throws -> PostRow {
        let (json, position) = try row.decode((String, Int64).self)
        return PostRow(post: PostJSONText(text: json), position: position)
    }

    /// Turns the `page` CTE (post_id, position) into §3.1 posts, ordered by position, newest first.
    ///
    /// PostgreSQL builds each post's JSON itself (`json_build_object`, keys in the contract's order and
    /// spelling; `json_strip_nulls` omits every unset optional, nested ones included; dates as
    /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`), and the service passes the text through: Foundation's JSONEncoder and
    /// JSONDecoder took more CPU than everything else a feed read does (bench/results/2026-11-22-posts-feed.md).
    /// `PostContractTests` pin the exact key sets and formats.
    static let assembly = """
        SELECT json_strip_nulls(json_build_object(
                   'post_id', p.post_id, 'product_id', p.product_id, 'title', p.title, 'content', p.content,
                   'content1', p.content1, 'content2', p.content2, 'content3', p.content3, 'content4', p.content4,
                   'content5', p.content5, 'price', p.price,
                   'createdAt', to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                   'creator', json_build_object('user_id', p.user_id, 'nick', coalesce(u.nick, ''), 'profileImage', u.profile_image),
                   'files', p.files,
                   'likes', ARRAY(SELECT l.user_id FROM posts.likes l LEFT JOIN posts.users lu ON lu.user_id = l.user_id
                                  WHERE l.post_id = p.post_id AND l.kind = 1 AND lu.withdrawn_at IS NULL ORDER BY l.seq),
                   'likes2', ARRAY(SELECT l.user_id FROM posts.likes l LEFT JOIN posts.users lu ON lu.user_id = l.user_id
                                   WHERE l.post_id = p.post_id AND l.kind = 2 AND lu.withdrawn_at IS NULL ORDER BY l.seq),
                   -- A completed sale stays sold when its buyer withdraws (BuyOrNot shows "sold" while buyers is non-empty).
                   'buyers', ARRAY(SELECT b.user_id FROM posts.buyers b WHERE b.post_id = p.post_id ORDER BY b.seq),
                   'hashTags', p.hash_tags,
                   'comments', (SELECT coalesce(json_agg(json_build_object(
                                           'comment_id', c.comment_id, 'content', c.content,
                                           'createdAt', to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                           'creator', json_build_object('user_id', c.user_id, 'nick', coalesce(cu.nick, ''),
                                                                        'profileImage', cu.profile_image))
                                       ORDER BY c.seq DESC), '[]'::json)
                                FROM posts.comments c LEFT JOIN posts.users cu ON cu.user_id = c.user_id
                                WHERE c.post_id = p.post_id AND cu.withdrawn_at IS NULL)
               ))::text,
               page.position
        FROM page
        JOIN posts.posts p ON p.post_id = page.post_id
        LEFT JOIN posts.users u ON u.user_id = p.user_id
        ORDER BY page.position DESC
        """
}

/// A post as assembled, with its position in the list's order (for the cursor).
struct PostRow: Sendable {
    var post: PostJSONText
    var position: Int64
}

/// The SQL of one list's page: `(post_id, position)` rows, at most `$2`, strictly before `$1`, newest first.
protocol PageSQL: Sendable {
    static var sql: String { get }
}

/// `WITH page AS (<Page.sql>) <assembly>`, prepared once per connection.
struct AssembledPosts<Page: PageSQL>: PostgresPreparedStatement {
    typealias Row = PostRow
    static var name: String { "posts_\(Page.self)" }
    static var sql: String { "WITH page AS (\n\(Page.sql)\n)\n\(PostQueries.assembly)" }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostRow { try PostQueries.decodeRow(row) }
}


extension AsyncSequence {
    /// All elements, in order.
    func collect() async throws -> [Element] {
        var elements: [Element] = []
        for try await element in self { elements.append(element) }
        return elements
    }
}
