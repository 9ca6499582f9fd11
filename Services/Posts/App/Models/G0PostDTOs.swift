import Foundation
import Hummingbird
import SNSPlatform

/// The §3.1 post as PostgreSQL assembles it (`posts.posts.doc`, see `MaterialisedPosts`), read back to be re-spelled as
/// G0.
/// Dates stay the strings PostgreSQL wrote (`….SSS'Z'`), so both generations show the same instants.
struct G1PostWire: Decodable, Sendable {
    /// §3.2, the same type the G1 side encodes.
    typealias Creator = CreatorJSON

    struct Comment: Decodable, Sendable {
        var commentId: String
        var content: String
        var createdAt: String
        var creator: Creator
        enum CodingKeys: String, CodingKey { case commentId = "comment_id", content, createdAt, creator }
    }

    var postId: String
    var productId: String?
    var title: String?
    var content: String?
    var content1: String?
    var content2: String?
    var content3: String?
    var content4: String?
    var content5: String?
    var createdAt: String
    var creator: Creator
    var files: [String]
    var likes: [String]
    var hashTags: [String]
    var comments: [Comment]

    enum CodingKeys: String, CodingKey {
        case postId = "post_id", productId = "product_id", title, content, content1, content2, content3, content4,
            content5
        case createdAt, creator, files, likes, hashTags, comments
    }
}

extension G0User {
    /// The G1 §3.2 user, re-spelled.
    init(_ user: CreatorJSON) {
        self.init(id: user.userId, nick: user.nick, profile: user.profileImage)
    }
}

/// G0 comment: `{_id, content, time, creator}`.
struct G0Comment: Encodable, Sendable {
    var id: String
    var content: String
    var time: String
    var creator: G0User
    enum CodingKeys: String, CodingKey { case id = "_id", content, time, creator }
}

/// G0 post (API conventions §4): `{likes, image, hashTags, comments, _id, creator, time, title?, content?,
/// content1…5?, product_id}` — unset optionals omitted. G1's `likes2`, `buyers` and `price` did not exist in G0.
struct G0Post: Encodable, Sendable {
    var likes: [String]
    var image: [String]
    var hashTags: [String]
    var comments: [G0Comment]
    var id: String
    var creator: G0User
    var time: String
    var title: String?
    var content: String?
    var content1: String?
    var content2: String?
    var content3: String?
    var content4: String?
    var content5: String?
    var productId: String?

    enum CodingKeys: String, CodingKey {
        case likes, image, hashTags, comments, id = "_id", creator, time, title, content
        case content1, content2, content3, content4, content5, productId = "product_id"
    }

    init(_ post: G1PostWire) {
        likes = post.likes
        image = post.files
        hashTags = post.hashTags
        comments = post.comments.map {
            G0Comment(id: $0.commentId, content: $0.content, time: $0.createdAt, creator: G0User($0.creator))
        }
        id = post.postId
        creator = G0User(post.creator)
        time = post.createdAt
        title = post.title
        content = post.content
        content1 = post.content1
        content2 = post.content2
        content3 = post.content3
        content4 = post.content4
        content5 = post.content5
        productId = post.productId
    }

    init(_ text: PostJSONText) throws {
        self.init(try JSONDecoder().decode(G1PostWire.self, from: Data(text.text.utf8)))
    }
}

/// G0 post list: `{data, next_cursor}` (the cursor is the same as G1's).
struct G0PostList: Encodable, Sendable {
    var data: [G0Post]
    var nextCursor: String
    enum CodingKeys: String, CodingKey { case data, nextCursor = "next_cursor" }
}

/// G0 `DELETE /post/{id}` → `{_id}`.
struct G0DeletedPost: Encodable, Sendable {
    var id: String
    enum CodingKeys: String, CodingKey { case id = "_id" }
}

/// G0 `DELETE /post/{id}/comment/{comment_id}` → `{postID, commentID}` (Best Moment reads both; RaeBaek reads
/// only `postID`, API conventions §9.8).
struct G0DeletedComment: Encodable, Sendable {
    var postId: String
    var commentId: String
    enum CodingKeys: String, CodingKey { case postId = "postID", commentId = "commentID" }
}

extension Response {
    /// One post in either generation.
    static func post(_ post: PostJSONText, _ format: WireFormat) throws -> Response {
        switch format {
        case .g1, .g2: return .post(post)  // G2's statements read the ready G2 document
        case .g0: return try .json(G0Post(post))
        }
    }

    /// A post list in either generation.
    static func postList(_ posts: [PostJSONText], nextCursor: String, _ format: WireFormat) throws -> Response {
        switch format {
        case .g1, .g2: return .postList(posts, nextCursor: nextCursor)
        case .g0: return try .json(G0PostList(data: try posts.map { try G0Post($0) }, nextCursor: nextCursor))
        }
    }

    /// One comment in either generation.
    static func comment(_ comment: CommentJSON, _ format: WireFormat) throws -> Response {
        switch format {
        case .g1:
            return try .json(comment)
        case .g0:
            let creator = G0User(comment.creator)
            return try .json(
                G0Comment(
                    id: comment.commentId, content: comment.content,
                    time: APIDateFormat.string(from: comment.createdAt), creator: creator))
        case .g2:
            return try .json(G2Comment(comment))
        }
    }
}
