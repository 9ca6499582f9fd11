import PostgresNIO
import Synchronization

/// A read's page statement with the reader's account check in the same statement, so a page costs one round trip
/// and one execution instead of two (decision 0022). The first column says whether the reader may read (not
/// withdrawn by this service's read model; unknown = yes, as `ActiveUserCheck`); the page's rows follow only if so:
///
///     SELECT r.active, p.doc, p.position
///     FROM (SELECT NOT EXISTS (…withdrawn reader…) AS active OFFSET 0) r
///     LEFT JOIN LATERAL (<the page's statement>) AS p (doc, position) ON r.active
///
/// There is always at least one row: `(false, NULL, NULL)` for a withdrawn reader, `(true, NULL, NULL)` for an empty
/// page. The reader's id is bound after the page's own parameters. The one-row outer side is joined by a nested loop,
/// which keeps the page's own order.
struct ReaderCheckedPage<Page: PageSQL>: PostgresPreparedStatement {
    typealias Row = CheckedRow
    static var name: String { PageStatementTexts.of(Page.self).checkedName }
    static var sql: String { PageStatementTexts.of(Page.self).checkedSQL }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> CheckedRow {
        let (active, doc, position) = try row.decode((Bool, String?, Int64?).self)
        guard let doc, let position else { return CheckedRow(active: active, row: nil) }
        return CheckedRow(active: active, row: PostRow(post: PostJSONText(text: doc), position: position))
    }
}

/// A list's page as one row, for the generations that send the posts' ready JSON as it is (G1, G2): the reader's
/// check as in `ReaderCheckedPage` (`bool_or` of its one row), how many rows the page's statement fetched
/// (`limit + 1` at most), the shown posts' JSON joined by commas in the page's order (the extra row that only says
/// "there is more" left out), and the last shown post's position (every list is newest first: `position`
/// descending). One row instead of 21 saves the service a row decode and a copy per post; PostgreSQL joins the texts.
struct ReaderCheckedList<Page: PageSQL>: PostgresPreparedStatement {
    typealias Row = ListRow
    static var name: String { PageStatementTexts.of(Page.self).listName }
    static var sql: String { PageStatementTexts.of(Page.self).listSQL }

    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> ListRow {
        let (active, fetched, joined, lastShown) = try row.decode((Bool, Int64, ByteBuffer?, Int64?).self)
        return ListRow(active: active, fetched: Int(fetched), joined: joined, lastShown: lastShown)
    }
}

struct ListRow: Sendable {
    var active: Bool
    var fetched: Int
    /// The shown posts' JSON, comma-separated; nil when none is shown.
    var joined: ByteBuffer?
    var lastShown: Int64?
}

extension PageSQL {
    /// The statement a read runs: this page with the reader's account check.
    static var checkedSQL: String { PageStatementTexts.of(Self.self).checkedSQL }
    /// The same as one row of joined JSON (`ReaderCheckedList`).
    static var listSQL: String { PageStatementTexts.of(Self.self).listSQL }
}

struct CheckedRow: Sendable {
    var active: Bool
    var row: PostRow?
}

/// The names and texts of each page's two statements, made once per page type: PostgresNIO asks a prepared
/// statement for its name and SQL on every execution, and a type's name is costly to render.
enum PageStatementTexts {
    struct Texts: Sendable {
        var name: String
        var checkedName: String
        var checkedSQL: String
        var listName: String
        var listSQL: String
    }

    private static let cache = Mutex<[ObjectIdentifier: Texts]>([:])

    static func of<Page: PageSQL>(_ page: Page.Type) -> Texts {
        let key = ObjectIdentifier(page)
        if let texts = cache.withLock({ $0[key] }) { return texts }
        let texts = make(page)
        cache.withLock { $0[key] = texts }
        return texts
    }

    private static func make<Page: PageSQL>(_ page: Page.Type) -> Texts {
        let reader = highestParameter(in: Page.sql) + 1
        let readerCheck = """
            (SELECT NOT EXISTS (SELECT FROM users u WHERE u.user_id = $\(reader) AND u.withdrawn_at IS NOT NULL)
             AS active OFFSET 0) r
            """
        // `OFFSET 0` keeps the check a subquery of its own, evaluated once. The list's aggregate has no GROUP BY
        // (one row whatever comes) and no ORDER BY of its own: its input comes in the page's order, from a nested
        // loop over the one-row check and the window over the page, and an ordered aggregate would sort the rows
        // again (`QueryPlanTests` checks the plan's shape; the paging tests check the order). `$2` is every list's row count (`limit + 1`): rows numbered below it are shown.
        return Texts(
            name: "posts_doc_\(Page.self)",
            checkedName: "posts_checked_\(Page.self)",
            checkedSQL: """
                SELECT r.active, p.doc, p.position
                FROM \(readerCheck)
                LEFT JOIN LATERAL (\(Page.sql)) AS p (doc, position) ON r.active
                """,
            listName: "posts_list_\(Page.self)",
            listSQL: """
                SELECT bool_or(r.active), count(p.position),
                       string_agg(p.doc, ',') FILTER (WHERE p.n < $2),
                       min(p.position) FILTER (WHERE p.n < $2)
                FROM \(readerCheck)
                LEFT JOIN LATERAL (
                    SELECT q.doc, q.position, row_number() OVER (ORDER BY q.position DESC) AS n
                    FROM (\(Page.sql)) AS q (doc, position)
                ) p ON r.active
                """)
    }

    /// The highest `$n` placeholder of a statement (0 if none).
    static func highestParameter(in sql: String) -> Int {
        var highest = 0
        var bytes = sql.utf8[...]
        while let dollar = bytes.firstIndex(of: UInt8(ascii: "$")) {
            bytes = bytes[bytes.index(after: dollar)...]
            let digits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            if let value = Int(String(decoding: digits, as: UTF8.self)) { highest = max(highest, value) }
            bytes = bytes.dropFirst(digits.count)
        }
        return highest
    }
}
