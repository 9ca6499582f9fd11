import Foundation
import Hummingbird
import SNSPlatform

/// What a G2 page statement reads beside the G1 document (`G2Columns.extras`, `NearbyParts.extras`).
struct G2Extras: Decodable, Sendable {
    var value6: String?
    var value7: String?
    var value8: String?
    var value9: String?
    var value10: String?
    var latitude: Double?
    var longitude: Double?
    var distance: Double?
}

/// G2 user entry (creator): `{user_id, nick, profileImage?}`, the image path with its leading slash.
struct G2User: Encodable, Sendable {
    var userId: String
    var nick: String
    var profileImage: String?
    enum CodingKeys: String, CodingKey { case userId = "user_id", nick, profileImage }

    init(_ user: CreatorJSON) {
        userId = user.userId
        nick = user.nick
        profileImage = G2Path.encode(user.profileImage)
    }
}

/// G2 comment: `{comment_id, content, createdAt, creator}` (WeeMo's optional `replies` is never sent).
struct G2Comment: Encodable, Sendable {
    var commentId: String
    var content: String
    var createdAt: String
    var creator: G2User
    enum CodingKeys: String, CodingKey { case commentId = "comment_id", content, createdAt, creator }

    init(_ comment: G1PostWire.Comment) {
        commentId = comment.commentId
        content = comment.content
        createdAt = comment.createdAt
        creator = G2User(comment.creator)
    }

    init(_ comment: CommentJSON) {
        commentId = comment.commentId
        content = comment.content
        createdAt = APIDateFormat.string(from: comment.createdAt)
        creator = G2User(comment.creator)
    }
}

/// `{longitude, latitude}`; a post without a place shows 0, 0 (both G2 apps require the object on every post).
struct G2Geolocation: Encodable, Sendable {
    var longitude: Double
    var latitude: Double
}

/// The G2 post (decision 0021), the union of what mychelin and WeeMo decode: `category` for `product_id`,
/// `title` and `content` always strings, `content1…5` and their G2 spelling `value1…5`, then `value6…10`,
/// `comments` (mychelin) and `comment_count` (WeeMo), `geolocation` always, `distance` in nearby lists, paths
/// with a leading slash. Unset optionals are omitted.
struct G2Post: Encodable, Sendable {
    var postId: String
    var category: String
    var title: String
    var price: Int?
    var content: String
    var content1, content2, content3, content4, content5: String?
    var value1, value2, value3, value4, value5, value6, value7, value8, value9, value10: String?
    var createdAt: String
    var creator: G2User
    var files: [String]
    var likes: [String]
    var likes2: [String]
    var buyers: [String]
    var hashTags: [String]
    var comments: [G2Comment]
    var commentCount: Int
    var geolocation: G2Geolocation
    var distance: Double?

    enum CodingKeys: String, CodingKey {
        case postId = "post_id", category, title, price, content
        case content1, content2, content3, content4, content5
        case value1, value2, value3, value4, value5, value6, value7, value8, value9, value10
        case createdAt, creator, files, likes, likes2, buyers, hashTags, comments
        case commentCount = "comment_count", geolocation, distance
    }

    init(_ post: G1PostWire, extras: G2Extras) {
        postId = post.postId
        category = post.productId ?? ""
        title = post.title ?? ""
        price = post.price
        content = post.content ?? ""
        (content1, content2, content3, content4, content5) =
            (post.content1, post.content2, post.content3, post.content4, post.content5)
        (value1, value2, value3, value4, value5) = (content1, content2, content3, content4, content5)
        (value6, value7, value8, value9, value10) =
            (extras.value6, extras.value7, extras.value8, extras.value9, extras.value10)
        createdAt = post.createdAt
        creator = G2User(post.creator)
        files = post.files.map { G2Path.encode($0) }
        likes = post.likes
        likes2 = post.likes2
        buyers = post.buyers
        hashTags = post.hashTags
        comments = post.comments.map(G2Comment.init)
        commentCount = post.comments.count
        geolocation = G2Geolocation(longitude: extras.longitude ?? 0, latitude: extras.latitude ?? 0)
        distance = extras.distance
    }

    /// A row of a G2 statement (document and extras).
    init(_ text: PostJSONText) throws {
        let decoder = JSONDecoder()
        let extras = try text.extras.map { try decoder.decode(G2Extras.self, from: Data($0.utf8)) }
        self.init(
            try decoder.decode(G1PostWire.self, from: Data(text.text.utf8)),
            extras: extras ?? G2Extras())
    }
}

/// G2 post list: `{data, next_cursor}`. `next_cursor` is `"0"` at the end, as in G1: mychelin requires the key;
/// WeeMo's meet list then asks once more with `next=0` and gets an empty page.
struct G2PostList: Encodable, Sendable {
    var data: [G2Post]
    var nextCursor: String
    enum CodingKeys: String, CodingKey { case data, nextCursor = "next_cursor" }
}

/// `GET /v1/posts/{post_id}/comments` → `{data: [comment]}`, in the post's comment order (newest first).
struct G2CommentList: Encodable, Sendable {
    var data: [G2Comment]
}
