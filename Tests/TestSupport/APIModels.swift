import Foundation
import SNSPlatform

/// The G1 API's answers as typed values with the key names the apps decode (API conventions §3). Decoding fails
/// when a required key is missing or has another type, so a test that reads a reply through these also checks it.
/// Exact key sets (no extra keys, optionals omitted rather than null) are checked with `TestReply.json`.
package enum APIModels {
    package static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(APIDateFormat.decode)
        return decoder
    }()

    /// §3.2 — the creator of a post or comment, an entry of a follower list, a search hit.
    package struct User: Decodable, Sendable, Equatable {
        package var userId: String
        package var nick: String
        package var profileImage: String?

        enum CodingKeys: String, CodingKey { case userId = "user_id", nick, profileImage }
    }

    /// §3.3
    package struct Comment: Decodable, Sendable, Equatable {
        package var commentId: String
        package var content: String
        package var createdAt: Date
        package var creator: User

        enum CodingKeys: String, CodingKey { case commentId = "comment_id", content, createdAt, creator }
    }

    /// §3.1
    package struct Post: Decodable, Sendable, Equatable {
        package var postId: String
        package var productId: String?
        package var title: String?
        package var content: String?
        package var price: Int?
        package var createdAt: Date
        package var creator: User
        package var files: [String]
        package var likes: [String]
        package var likes2: [String]
        package var buyers: [String]
        package var hashTags: [String]
        package var comments: [Comment]

        enum CodingKeys: String, CodingKey {
            case postId = "post_id", productId = "product_id", title, content, price, createdAt, creator, files
            case likes, likes2, buyers, hashTags, comments
        }
    }

    /// §3.5 — a page of posts.
    package struct PostPage: Decodable, Sendable {
        package var data: [Post]
        package var nextCursor: String

        enum CodingKeys: String, CodingKey { case data, nextCursor = "next_cursor" }
    }
}
