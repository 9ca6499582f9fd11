import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// The read side: every list is one backward index scan returning each post's ready §3.1 JSON (`posts.posts.doc`,
/// kept by `MaterialisedPosts`' triggers) with its position in the list, at most `limit + 1` rows so we know
/// whether there is a next page. Content of withdrawn users (posts, comments, likes) never appears.
///
/// A read is one statement (decision 0022): the page wrapped with the reader's account check, as one row of the
/// shown posts' JSON joined by PostgreSQL for G1 and G2 (`ReaderCheckedList`) or as rows for G0
/// (`ReaderCheckedPage`). Each is a named prepared statement, one per list and filter combination, planned once
/// per connection as a generic plan (posts' connections force them), so each must use the right index without
/// knowing the values (`QueryPlanTests` checks the generic plans). The service passes the JSON through: Foundation's
/// JSONEncoder and JSONDecoder took more CPU than everything else a feed read does
/// (bench/results/2026-11-22-posts-feed.md).
struct PostQueries: Sendable {
    let pools: LoopLocalPools
    /// The pool of the request's event loop.
    var client: PostgresClient { pools.current }

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

    /// `reader` is the caller: their account is checked in the same statement (401 if withdrawn).
    func one(postId: String, reader: String, logger: Logger) async throws -> PostJSONText? {
        try await run(OnePostPage.self, bindings: Self.bindings(postId), reader: reader, logger: logger).first?.post
    }

    /// One post by a single-post statement, on the pool or on the caller's connection.
    func first<P: PageSQL>(_: P.Type, postId: String, on connection: PostgresConnection?, logger: Logger)
        async throws -> PostJSONText?
    {
        let statement = PostPage<P>(bindings: Self.bindings(postId))
        let rows =
            if let connection {
                try await connection.execute(statement, logger: logger).collect()
            } else {
                try await client.execute(statement, logger: logger).collect()
            }
        return rows.first.map(Self.post)
    }

    func list(_ list: List, page: Page, reader: String, logger: Logger) async throws -> Result {
        try await self.page(page, reader: reader, logger: logger) { Self.route(list, page: page) }
    }

    /// One page of a list: the statement and bindings `route` picks, `limit + 1` rows, the cursor of the last shown.
    /// The reader's account is checked in the page's own statement (`ReaderCheckedPage`): 401 if withdrawn.
    func page(_ page: Page, reader: String, logger: Logger, route: () -> (any PageSQL.Type, PostgresBindings))
        async throws -> Result
    {
        guard !page.isPastEnd else {
            try await checkActive(reader, logger: logger)
            return Result(posts: [], nextCursor: Cursor.end)
        }
        let (variant, bindings) = route()
        let rows = try await run(variant, bindings: bindings, reader: reader, logger: logger)
        let shown = rows.prefix(page.limit)
        return Result(
            posts: shown.map(Self.post),
            nextCursor: page.nextCursor(fetched: rows.count, lastPosition: shown.last?.position))
    }

    /// The page's rows, in one statement with the reader's account check; throws 401 if the reader withdrew.
    func run<P: PageSQL>(_: P.Type, bindings: PostgresBindings, reader: String, logger: Logger) async throws
        -> [PostRow]
    {
        var bindings = bindings
        bindings.append(reader)
        var rows: [PostRow] = []
        for try await checked in try await client.execute(ReaderCheckedPage<P>(bindings: bindings), logger: logger) {
            guard checked.active else { throw Self.readerGone }
            if let row = checked.row { rows.append(row) }
        }
        return rows
    }

    /// A page as the shown posts' JSON joined by commas (G1, G2): one row from PostgreSQL (`ReaderCheckedList`).
    struct Joined: Sendable {
        var joined: ByteBuffer?
        var nextCursor: String
    }

    func joinedList(_ list: List, page: Page, reader: String, logger: Logger) async throws -> Joined {
        try await joinedPage(page, reader: reader, logger: logger) { Self.route(list, page: page) }
    }

    func joinedPage(
        _ page: Page, reader: String, logger: Logger, route: () -> (any PageSQL.Type, PostgresBindings)
    ) async throws -> Joined {
        guard !page.isPastEnd else {
            try await checkActive(reader, logger: logger)
            return Joined(joined: nil, nextCursor: Cursor.end)
        }
        let (variant, bindings) = route()
        let row = try await runList(variant, bindings: bindings, reader: reader, logger: logger)
        guard row.active else { throw Self.readerGone }
        return Joined(
            joined: row.joined, nextCursor: page.nextCursor(fetched: row.fetched, lastPosition: row.lastShown))
    }

    func runList<P: PageSQL>(_: P.Type, bindings: PostgresBindings, reader: String, logger: Logger) async throws
        -> ListRow
    {
        var bindings = bindings
        bindings.append(reader)
        for try await row in try await client.execute(ReaderCheckedList<P>(bindings: bindings), logger: logger) {
            return row
        }
        throw PageStatementReturnedNoRow()
    }

    /// The account check alone, for a read that runs no page statement.
    func checkActive(_ reader: String, logger: Logger) async throws {
        for try await active in try await client.execute(ActiveUserCheck(userId: reader), logger: logger)
        where !active {
            throw Self.readerGone
        }
    }

    static var readerGone: APIError { AuthenticationMiddleware.accountGone }

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
}

/// A statement that always returns a row returned none.
struct PageStatementReturnedNoRow: Error {}

/// A post's JSON, with its position in the list's order (for the cursor).
struct PostRow: Sendable {
    var post: PostJSONText
    var position: Int64
}

/// The SQL of one list's page: `(doc, position)` rows (G2's: `doc_g2`), at most `$2`, strictly before `$1`, newest
/// first.
protocol PageSQL: Sendable {
    static var sql: String { get }
}

/// One list's page statement, prepared once per connection.
struct PostPage<Page: PageSQL>: PostgresPreparedStatement {
    typealias Row = PostRow
    static var name: String { PageStatementTexts.of(Page.self).name }
    static var sql: String { Page.sql }

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
