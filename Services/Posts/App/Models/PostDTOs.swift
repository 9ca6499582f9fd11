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
struct PostBody: Decodable, Sendable {
    var title: Field<String>
    var content: Field<String>
    var content1: Field<String>
    var content2: Field<String>
    var content3: Field<String>
    var content4: Field<String>
    var content5: Field<String>
    var productId: Field<String>
    var files: Field<[String]>
    var price: Field<Int>

    enum CodingKeys: String, CodingKey {
        case title, content, content1, content2, content3, content4, content5
        case productId = "product_id", files, price
    }

    /// An empty body (every key absent); the G0 multipart form fills it part by part.
    init() {
        title = .absent
        content = .absent
        content1 = .absent
        content2 = .absent
        content3 = .absent
        content4 = .absent
        content5 = .absent
        productId = .absent
        files = .absent
        price = .absent
    }

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
        case .files?, .price?, nil: break
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

/// A §3.1 post as JSON text, kept ready by PostgreSQL (`posts.posts.doc`, see `MaterialisedPosts`).
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

    private static func json(text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
