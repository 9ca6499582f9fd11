import Foundation
import SNSPlatform

/// The G1 API's answers as typed values with the key names the apps decode (API conventions §3). Decoding fails
/// when a required key is missing or has another type, so a test that reads a reply through these also checks it.
/// Exact key sets (no extra keys, optionals omitted rather than null) are checked with `TestReply.json`.
public enum APIModels {
    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(APIDateFormat.decode)
        return decoder
    }()

    /// §3.2 — the creator of a post or comment, an entry of a follower list, a search hit.
    public struct User: Decodable, Sendable, Equatable {
        public var userId: String
        public var nick: String
        public var profileImage: String?

        enum CodingKeys: String, CodingKey { case userId = "user_id", nick, profileImage }
    }

    /// §3.3
    public struct Comment: Decodable, Sendable, Equatable {
        public var commentId: String
        public var content: String
        public var createdAt: Date
        public var creator: User

        enum CodingKeys: String, CodingKey { case commentId = "comment_id", content, createdAt, creator }
    }

    /// §3.1
    public struct Post: Decodable, Sendable, Equatable {
        public var postId: String
        public var productId: String?
        public var title: String?
        public var content: String?
        public var price: Int?
        public var createdAt: Date
        public var creator: User
        public var files: [String]
        public var likes: [String]
        public var likes2: [String]
        public var buyers: [String]
        public var hashTags: [String]
        public var comments: [Comment]

        enum CodingKeys: String, CodingKey {
            case postId = "post_id", productId = "product_id", title, content, price, createdAt, creator, files
            case likes, likes2, buyers, hashTags, comments
        }
    }

    /// §3.5 — a page of posts.
    public struct PostPage: Decodable, Sendable {
        public var data: [Post]
        public var nextCursor: String

        enum CodingKeys: String, CodingKey { case data, nextCursor = "next_cursor" }
    }

    /// §3.4 — a profile (another user's leaves out email, phone and birthday).
    public struct Profile: Decodable, Sendable {
        public var userId: String
        public var email: String?
        public var nick: String
        public var profileImage: String?
        public var followers: [User]
        public var following: [User]
        public var posts: [String]

        enum CodingKeys: String, CodingKey {
            case userId = "user_id", email, nick, profileImage, followers, following, posts
        }
    }
}
