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

        package init(userId: String, nick: String, profileImage: String?) {
            self.userId = userId
            self.nick = nick
            self.profileImage = profileImage
        }

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
        package var content1: String?
        package var content2: String?
        package var content3: String?
        package var content4: String?
        package var content5: String?
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
            case postId = "post_id", productId = "product_id", title, content, content1, content2, content3, content4
            case content5, price, createdAt, creator, files, likes, likes2, buyers, hashTags, comments
        }
    }

    /// §3.5 and §6 — one page of a paged list: `{data, next_cursor}` (`"0"` = the end).
    package struct Page<Item: Decodable & Sendable>: Decodable, Sendable {
        package var data: [Item]
        package var nextCursor: String

        enum CodingKeys: String, CodingKey { case data, nextCursor = "next_cursor" }
    }

    /// §3.5 — a list without a cursor: `{data}` (search results, payments, rankings).
    package struct DataList<Item: Decodable & Sendable>: Decodable, Sendable {
        package var data: [Item]
    }

    /// §3.5 — a page of posts.
    package typealias PostPage = Page<Post>
    /// §2.2 — user search.
    package typealias UserList = DataList<User>

    /// §3.4 — a profile with our activity counts; another user's leaves out email, phone and birthday.
    package struct Profile: Decodable, Sendable, Equatable {
        package var userId: String
        package var email: String?
        package var nick: String
        package var phoneNum: String?
        package var birthDay: String?
        package var profileImage: String?
        package var followers: [User]
        package var following: [User]
        package var posts: [String]
        package var postCount: Int
        package var commentCount: Int
        package var likeCount: Int
        package var followerCount: Int
        package var followingCount: Int

        enum CodingKeys: String, CodingKey {
            case userId = "user_id", email, nick, phoneNum, birthDay, profileImage, followers, following, posts
            case postCount, commentCount, likeCount, followerCount, followingCount
        }
    }

    /// §2.3 — the answer of `POST /v1/posts/files`: the paths in upload order.
    package struct UploadedFiles: Decodable, Sendable, Equatable {
        package var files: [String]
    }

    /// §2.6 — the answer of a validation, an entry of the payment history.
    package struct Payment: Decodable, Sendable, Equatable {
        package var paymentId: String
        package var buyerId: String
        package var postId: String
        package var merchantUid: String
        package var productName: String?
        package var price: Int
        package var paidAt: Date

        enum CodingKeys: String, CodingKey {
            case paymentId = "payment_id", buyerId = "buyer_id", postId = "post_id", merchantUid = "merchant_uid"
            case productName, price, paidAt
        }
    }

    /// §2.6 — `GET /v1/payments/me`, newest first.
    package typealias PaymentList = DataList<Payment>

    /// A post of `GET /v1/rankings/posts`.
    package struct PostRank: Decodable, Sendable, Equatable {
        package var postId: String
        package var userId: String
        package var score: Double
        package var likes: Int
        package var comments: Int

        enum CodingKeys: String, CodingKey { case postId = "post_id", userId = "user_id", score, likes, comments }
    }

    /// A user of `GET /v1/rankings/users`.
    package struct UserRank: Decodable, Sendable, Equatable {
        package var userId: String
        package var nick: String
        package var profileImage: String?
        package var score: Double

        enum CodingKeys: String, CodingKey { case userId = "user_id", nick, profileImage, score }
    }

    package typealias PostRanking = DataList<PostRank>
    package typealias UserRanking = DataList<UserRank>

    /// §4 — a G0 user (creator, follower entry): `_id`, and `profile` for the picture.
    package struct G0User: Decodable, Sendable, Equatable {
        package var id: String
        package var nick: String
        package var profile: String?

        enum CodingKeys: String, CodingKey { case id = "_id", nick, profile }
    }

    /// §4 — a G0 comment: §3.3 with `_id` and `time`.
    package struct G0Comment: Decodable, Sendable, Equatable {
        package var id: String
        package var content: String
        package var time: Date
        package var creator: G0User

        enum CodingKeys: String, CodingKey { case id = "_id", content, time, creator }
    }

    /// §4 — a G0 post: §3.1 with `_id`, `image` and `time`; no `likes2`, `buyers` or `price`.
    package struct G0Post: Decodable, Sendable, Equatable {
        package var id: String
        package var productId: String
        package var title: String?
        package var content: String?
        package var content1: String?
        package var content2: String?
        package var content3: String?
        package var content4: String?
        package var content5: String?
        package var time: Date
        package var creator: G0User
        package var image: [String]
        package var likes: [String]
        package var hashTags: [String]
        package var comments: [G0Comment]

        enum CodingKeys: String, CodingKey {
            case id = "_id", productId = "product_id", title, content, content1, content2, content3, content4
            case content5, time, creator, image, likes, hashTags, comments
        }
    }

    /// §4 — a page of G0 posts (same cursors as G1).
    package typealias G0PostList = Page<G0Post>

    /// §4 — a G0 profile (`/profile/me`, `/profile/{id}`); another user's leaves out email, phone and birthday.
    package struct G0Profile: Decodable, Sendable, Equatable {
        package var id: String
        package var email: String?
        package var nick: String
        package var phoneNum: String?
        package var birthDay: String?
        package var profile: String?
        package var followers: [G0User]
        package var following: [G0User]
        package var posts: [String]

        enum CodingKeys: String, CodingKey {
            case id = "_id", email, nick, phoneNum, birthDay, profile, followers, following, posts
        }
    }

    /// A chat message as the apps decode it (BuyOrNot, KeyCat, WeeMo: `content` and `files` always present).
    package struct Chat: Decodable, Sendable, Equatable {
        package var chatId: String
        package var roomId: String
        package var content: String
        package var createdAt: Date
        package var sender: User
        package var files: [String]

        enum CodingKeys: String, CodingKey {
            case chatId = "chat_id", roomId = "room_id", content, createdAt, sender, files
        }
    }

    /// A chat room: participants opener first, `lastChat` absent before the first message.
    package struct ChatRoom: Decodable, Sendable {
        package var roomId: String
        package var createdAt: Date
        package var updatedAt: Date
        package var participants: [User]
        package var lastChat: Chat?

        enum CodingKeys: String, CodingKey { case roomId = "room_id", createdAt, updatedAt, participants, lastChat }
    }

    /// G2 post (decision 0021): what mychelin's `PostOutputType` and WeeMo's `PostDTO` decode, strictly: `title`,
    /// `content`, `category`, `comments`, `comment_count` and `geolocation` are required.
    package struct G2Post: Decodable, Sendable, Equatable {
        package struct Geolocation: Decodable, Sendable, Equatable {
            package var longitude: Double
            package var latitude: Double

            package init(longitude: Double, latitude: Double) {
                self.longitude = longitude
                self.latitude = latitude
            }
        }

        package var postId: String
        package var category: String
        package var title: String
        package var price: Int?
        package var content: String
        package var content1, content2, content3, content4, content5: String?
        package var value1, value2, value3, value4, value5, value6, value7, value8, value9, value10: String?
        package var createdAt: Date
        package var creator: User
        package var files: [String]
        package var likes: [String]
        package var likes2: [String]
        package var buyers: [String]
        package var hashTags: [String]
        package var comments: [Comment]
        package var commentCount: Int
        package var geolocation: Geolocation
        package var distance: Double?

        enum CodingKeys: String, CodingKey {
            case postId = "post_id", category, title, price, content, content1, content2, content3, content4, content5
            case value1, value2, value3, value4, value5, value6, value7, value8, value9, value10
            case createdAt, creator, files, likes, likes2, buyers, hashTags, comments
            case commentCount = "comment_count", geolocation, distance
        }
    }
}
