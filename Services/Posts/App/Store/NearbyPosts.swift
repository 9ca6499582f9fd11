import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// `GET /v1/posts/geolocation` (G2, decision 0021): the posts of an app within `maxDistance` metres of a point, on
/// earthdistance's sphere (radius 6 378 168 m), nearest first, farthest first, newest or oldest first, paged
/// exactly by a cursor of (order key, seq). Each post's `distance` is its great-circle distance in metres.
///
/// Statements: `$1` latitude, `$2` longitude, `$3` maxDistance, `$4` app, `$5` rows to fetch, `$6` category or NULL,
/// `$7`/`$8` the cursor's key and seq (NULL on the first page). Rows: `(G2 document with distance, seq, key)`.
struct NearbyQuery: Sendable {
    enum Order: Sendable, Equatable {
        case distance
        case createdAt
    }

    var latitude: Double
    var longitude: Double
    var maxDistance: Double
    var app: String
    var category: String?
    var order: Order
    var ascending: Bool
    var limit: Int
    var after: NearbyCursor?

    func run(on client: PostgresClient, logger: Logger) async throws -> PostQueries.Result {
        var bindings = PostgresBindings()
        bindings.append(latitude)
        bindings.append(longitude)
        bindings.append(maxDistance)
        bindings.append(app)
        bindings.append(Int64(limit + 1))
        bindings.append(category)
        bindings.append(after?.key)
        bindings.append(after?.seq)
        let rows: [NearbyRow]
        switch (order, ascending) {
        case (.distance, true):
            rows = try await client.execute(NearbyPage<NearestFirst>(bindings), logger: logger).collect()
        case (.distance, false):
            rows = try await client.execute(NearbyPage<FarthestFirst>(bindings), logger: logger).collect()
        case (.createdAt, false):
            rows = try await client.execute(NearbyPage<NewestFirst>(bindings), logger: logger).collect()
        case (.createdAt, true):
            rows = try await client.execute(NearbyPage<OldestFirst>(bindings), logger: logger).collect()
        }
        let shown = rows.prefix(limit)
        var next = Cursor.end
        if rows.count > limit, let last = shown.last {
            next =
                NearbyCursor(key: last.key, seq: last.seq, order: NearbyCursor.tag(order, ascending: ascending))
                .encoded
        }
        return PostQueries.Result(posts: shown.map(\.post), nextCursor: next)
    }
}

/// A position in a nearby list: the order key of the last post shown (its chord distance for the distance orders,
/// 0 for the date orders), its seq, and the order it belongs to (a cursor of another order is refused). Wire form:
/// base64url of `g2:<order>:<key's IEEE bits in hex>:<seq>`.
struct NearbyCursor: Sendable, Equatable {
    var key: Double
    var seq: Int64
    var order: String

    static func tag(_ order: NearbyQuery.Order, ascending: Bool) -> String {
        (order == .distance ? "d" : "c") + (ascending ? "a" : "d")
    }

    var encoded: String {
        Data("g2:\(order):\(String(key.bitPattern, radix: 16)):\(seq)".utf8).base64URLEncoded()
    }

    init(key: Double, seq: Int64, order: String) {
        self.key = key
        self.seq = seq
        self.order = order
    }

    init?(_ text: String) {
        guard text.utf8.count <= 96 else { return nil }
        guard let data = Data(base64URLEncoded: text), let plain = String(data: data, encoding: .utf8) else {
            return nil
        }
        let parts = plain.split(separator: ":")
        guard parts.count == 4, parts[0] == "g2", let bits = UInt64(parts[2], radix: 16), let seq = Int64(parts[3])
        else { return nil }
        self.key = Double(bitPattern: bits)
        self.seq = seq
        self.order = String(parts[1])
    }
}

struct NearbyRow: Sendable {
    var post: PostJSONText
    var seq: Int64
    var key: Double
}

protocol NearbySQL: Sendable {
    static var sql: String { get }
}

struct NearbyPage<Query: NearbySQL>: PostgresPreparedStatement {
    typealias Row = NearbyRow
    static var name: String { "posts_nearby_\(Query.self)" }
    static var sql: String { Query.sql }
    let bindings: PostgresBindings

    init(_ bindings: PostgresBindings) { self.bindings = bindings }

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> NearbyRow {
        let (doc, seq, key) = try row.decode((String, Int64, Double).self)
        return NearbyRow(post: PostJSONText(text: doc), seq: seq, key: key)
    }
}

/// The SQL shared by the nearby statements.
enum NearbyParts {
    /// The searched point. Not a sub-select (an init plan, computed once): that was 2.2× faster in `EXPLAIN ANALYZE`,
    /// but its generic plan on a smaller table chose a sequential scan and a sort over the index's nearest-neighbour
    /// order (`G2QueryPlanTests`), which a large table would pay dearly.
    static let center = "public.ll_to_earth($1, $2)"
    static let chord = "(p.earth <-> \(center))"
    /// Within maxDistance, of the app (and category), author not withdrawn. The app and the place are the two columns
    /// of `posts_place_idx` (migration 103).
    static let filters = """
        p.earth IS NOT NULL AND p.app_id = $4 AND NOT p.author_withdrawn AND ($6::text IS NULL OR p.product_id = $6)
          AND public.earth_distance(p.earth, \(center)) <= $3
        """
    /// The post's ready G2 JSON with its `distance` in metres added (text splice: the document is an object).
    static let document = """
        left(p.doc_g2, -1) || ',"distance":' || public.earth_distance(p.earth, \(center))::text || '}'
        """
}

/// Nearest first, on the index's nearest-neighbour order: the first scan finds how far the page reaches (the
/// distance of its last row), the second reads every post up to that distance (a box of that radius on the same
/// index) and orders them by (distance, seq), so posts at equal distances (one place, several posts) are ordered
/// and paged exactly, which the nearest-neighbour order alone does not do.
enum NearestFirst: NearbySQL {
    static let after = "($7::float8 IS NULL OR \(NearbyParts.chord) > $7 OR (\(NearbyParts.chord) = $7 AND p.seq > $8))"
    static let sql = """
        WITH nearest AS MATERIALIZED (
            SELECT \(NearbyParts.chord) AS chord FROM posts p
            WHERE \(NearbyParts.filters) AND \(after)
            ORDER BY p.earth <-> \(NearbyParts.center) LIMIT $5
        ), reach AS (SELECT max(chord) AS chord FROM nearest)
        SELECT \(NearbyParts.document), p.seq, \(NearbyParts.chord) AS key FROM posts p, reach
        WHERE p.earth <@ public.earth_box(\(NearbyParts.center), public.sec_to_gc(reach.chord) + 1)
          AND \(NearbyParts.chord) <= reach.chord AND \(NearbyParts.filters) AND \(after)
        ORDER BY key, p.seq LIMIT $5
        """
}

/// Farthest first (mychelin asks `order_by=distance&sort_by=desc`): every post in the circle, sorted.
enum FarthestFirst: NearbySQL {
    static let sql = """
        SELECT \(NearbyParts.document), p.seq, \(NearbyParts.chord) AS key FROM posts p
        WHERE p.earth <@ public.earth_box(\(NearbyParts.center), $3) AND \(NearbyParts.filters)
          AND ($7::float8 IS NULL OR \(NearbyParts.chord) < $7 OR (\(NearbyParts.chord) = $7 AND p.seq < $8))
        ORDER BY key DESC, p.seq DESC LIMIT $5
        """
}

enum NewestFirst: NearbySQL {
    static let sql = """
        SELECT \(NearbyParts.document), p.seq, 0::float8 AS key FROM posts p
        WHERE p.earth <@ public.earth_box(\(NearbyParts.center), $3) AND \(NearbyParts.filters)
          AND ($7::float8 IS NULL OR (0::float8, p.seq) < ($7, $8::int8))
        ORDER BY p.seq DESC LIMIT $5
        """
}

enum OldestFirst: NearbySQL {
    static let sql = """
        SELECT \(NearbyParts.document), p.seq, 0::float8 AS key FROM posts p
        WHERE p.earth <@ public.earth_box(\(NearbyParts.center), $3) AND \(NearbyParts.filters)
          AND ($7::float8 IS NULL OR (0::float8, p.seq) > ($7, $8::int8))
        ORDER BY p.seq LIMIT $5
        """
}
