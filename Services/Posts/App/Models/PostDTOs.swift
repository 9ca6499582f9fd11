import Foundation

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

/// `POST /v1/posts` and `PUT /v1/posts/{id}` body (contract §2.3 #11/#14). On update, a key that is absent
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

/// `{like_status}` for both likes, request and response (contract §10.8).
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

/// §3.1 Post. Optional fields are omitted when unset (synthesized `encodeIfPresent`).
struct PostJSON: Encodable, Sendable {
    var postId: String
    var productId: String?
    var title: String?
    var content: String?
    var content1: String?
    var content2: String?
    var content3: String?
    var content4: String?
    var content5: String?
    var price: Int?
    var createdAt: Date
    var creator: CreatorJSON
    var files: [String]
    var likes: [String]
    var likes2: [String]
    var buyers: [String]
    var hashTags: [String]
    var comments: [CommentJSON]

    enum CodingKeys: String, CodingKey {
        case postId = "post_id", productId = "product_id", title, content, content1, content2, content3, content4, content5
        case price, createdAt, creator, files, likes, likes2, buyers, hashTags, comments
    }
}

/// §3.5 PostList: `{data, next_cursor}`.
struct PostListJSON: Encodable, Sendable {
    var data: [PostJSON]
    var nextCursor: String

    enum CodingKeys: String, CodingKey { case data, nextCursor = "next_cursor" }
}
