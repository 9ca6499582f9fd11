import Foundation
import Hummingbird
import SNSPlatform

/// One key of a JSON body, telling "absent" from an explicit `null` (an edit clears a field only when asked).
enum Field<Value: Decodable & Sendable>: Sendable {
    case absent
    case null
    case value(Value)

    var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }
}

extension KeyedDecodingContainer {
    func field<Value: Decodable & Sendable>(_ key: Key) throws -> Field<Value> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(Value.self, forKey: key))
    }
}

/// `POST /v1/posts` and `PUT /v1/posts/{id}` body (API conventions §2.3 #11/#14). On update, a key that is absent
/// leaves that field as it was (UriBoard omits `files` when editing), `null` clears it, a value replaces it.
///
/// G0 and G1 bodies read exactly their keys; G2's (`G2PostBody`) fill the G2 fields too.
struct PostBody: Decodable, Sendable {
    var title: Field<String> = .absent
    var content: Field<String> = .absent
    var content1: Field<String> = .absent
    var content2: Field<String> = .absent
    var content3: Field<String> = .absent
    var content4: Field<String> = .absent
    var content5: Field<String> = .absent
    var productId: Field<String> = .absent
    var files: Field<[String]> = .absent
    var price: Field<Int> = .absent
    var value6: Field<String> = .absent
    var value7: Field<String> = .absent
    var value8: Field<String> = .absent
    var value9: Field<String> = .absent
    var value10: Field<String> = .absent
    var latitude: Field<Double> = .absent
    var longitude: Field<Double> = .absent

    enum CodingKeys: String, CodingKey {
        case title, content, content1, content2, content3, content4, content5
        case productId = "product_id", files, price
        case category, value1, value2, value3, value4, value5, value6, value7, value8, value9, value10
        case latitude, longitude, logitude
    }

    /// An empty body (every key absent); the G0 multipart form fills it part by part.
    init() {}

    /// Sets a text field by its wire name (`product_id`, `content1` …); other names are ignored.
    mutating func set(_ name: String, to text: String) {
        switch CodingKeys(rawValue: name) {
        case .title?: title = .value(text)
        case .content?: content = .value(text)
        case .content1?: content1 = .value(text)
        case .content2?: content2 = .value(text)
        case .content3?: content3 = .value(text)
        case .content4?: content4 = .value(text)
        case .content5?: content5 = .value(text)
        case .productId?: productId = .value(text)
        default: break
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.field(.title)
        content = try container.field(.content)
        content1 = try container.field(.content1)
        content2 = try container.field(.content2)
        content3 = try container.field(.content3)
        content4 = try container.field(.content4)
        content5 = try container.field(.content5)
        productId = try container.field(.productId)
        files = try container.field(.files)
        price = try container.field(.price)
    }
}

/// A G2 app's post body (decision 0021): the same fields spelled their way, both spellings read — `category` is
/// `product_id`, `value1…value5` are `content1…content5` (mychelin sends `content1…5`, WeeMo `value1…9`); plus
/// `value6…value10` and a place, `latitude` with `longitude` (mychelin spells it `logitude`); file paths as G2 apps
/// received them, with a leading slash.
struct G2PostBody: Decodable, Sendable {
    var body: PostBody

    init(from decoder: any Decoder) throws {
        typealias Key = PostBody.CodingKeys
        let container = try decoder.container(keyedBy: Key.self)
        /// The first spelling present wins.
        func either<Value>(_ keys: Key...) throws -> Field<Value> {
            for key in keys {
                let field: Field<Value> = try container.field(key)
                if case .absent = field { continue }
                return field
            }
            return .absent
        }
        var body = PostBody()
        body.title = try container.field(.title)
        body.content = try container.field(.content)
        body.content1 = try either(.content1, .value1)
        body.content2 = try either(.content2, .value2)
        body.content3 = try either(.content3, .value3)
        body.content4 = try either(.content4, .value4)
        body.content5 = try either(.content5, .value5)
        body.productId = try either(.productId, .category)
        body.price = try container.field(.price)
        body.value6 = try container.field(.value6)
        body.value7 = try container.field(.value7)
        body.value8 = try container.field(.value8)
        body.value9 = try container.field(.value9)
        body.value10 = try container.field(.value10)
        body.latitude = try container.field(.latitude)
        body.longitude = try either(.longitude, .logitude)
        let files: Field<[String]> = try container.field(.files)
        if case .value(let paths) = files {
            body.files = .value(paths.map { $0.hasPrefix("/") ? String($0.drop { $0 == "/" }) : $0 })
        } else {
            body.files = files
        }
        self.body = body
    }
}

/// `{content}` for comments.
struct CommentBody: Decodable, Sendable {
    var content: String
}

/// `{like_status}` for both likes, request and response (API conventions §10.8).
struct LikeStatus: Codable, Sendable {
    var likeStatus: Bool

    enum CodingKeys: String, CodingKey { case likeStatus = "like_status" }
}

/// §3.2 User: `{user_id, nick, profileImage?}`.
struct CreatorJSON: Codable, Sendable, Equatable {
    var userId: String
    var nick: String
    var profileImage: String?

    enum CodingKeys: String, CodingKey { case userId = "user_id", nick, profileImage }
}

/// §3.3 Comment: `{comment_id, content, createdAt, creator}`.
struct CommentJSON: Codable, Sendable {
    var commentId: String
    var content: String
    var createdAt: Date
    var creator: CreatorJSON

    enum CodingKeys: String, CodingKey { case commentId = "comment_id", content, createdAt, creator }
}

/// A post as JSON text, kept ready by PostgreSQL: §3.1 (`posts.posts.doc`, see `MaterialisedPosts`), or G2's from
/// the G2 statements (`doc_g2`).
struct PostJSONText: Sendable {
    let text: String
}

extension Response {
    /// One post.
    static func post(_ post: PostJSONText) -> Response {
        json(text: post.text)
    }

    /// §3.5 PostList: `{data, next_cursor}`.
    static func postList(_ posts: [PostJSONText], nextCursor: String) -> Response {
        var text = #"{"data":["#
        text.reserveCapacity(posts.reduce(64) { $0 + $1.text.utf8.count + 1 })
        for (index, post) in posts.enumerated() {
            if index > 0 { text += "," }
            text += post.text
        }
        text += #"],"next_cursor":"# + APIError.jsonString(nextCursor) + "}"
        return json(text: text)
    }

    /// A page whose posts PostgreSQL joined (`PostQueries.Joined`): the bytes are copied once, into the body.
    static func postList(_ page: PostQueries.Joined) -> Response {
        let tail = #"],"next_cursor":"# + APIError.jsonString(page.nextCursor) + "}"
        var body = ByteBuffer()
        body.reserveCapacity(9 + (page.joined?.readableBytes ?? 0) + tail.utf8.count)
        body.writeStaticString(#"{"data":["#)
        if var joined = page.joined { body.writeBuffer(&joined) }
        body.writeString(tail)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }

    private static func json(text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
