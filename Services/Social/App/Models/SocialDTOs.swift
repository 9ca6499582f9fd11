import Foundation
import SNSPlatform

/// §3.2 User: `{user_id, nick, profileImage?}`.
struct UserJSON: Codable, Sendable, Equatable {
    var userId: String
    var nick: String
    var profileImage: String?

    enum CodingKeys: String, CodingKey { case userId = "user_id", nick, profileImage }

    /// G2 spells the image path with a leading slash.
    var g2: UserJSON { UserJSON(userId: userId, nick: nick, profileImage: G2Path.encode(profileImage)) }
}

/// §3.4 Profile. `email`, `phoneNum`, `birthDay` only on the caller's own profile; the counts are ours
/// (beyond LSLP, for the free-board app's activity screen).
struct ProfileJSON: Encodable, Sendable {
    var userId: String
    var email: String?
    var nick: String
    var phoneNum: String?
    var birthDay: String?
    var profileImage: String?
    var followers: [UserJSON]
    var following: [UserJSON]
    var posts: [String]
    var postCount: Int
    var commentCount: Int
    var likeCount: Int
    var followerCount: Int
    var followingCount: Int

    enum CodingKeys: String, CodingKey {
        case userId = "user_id", email, nick, phoneNum, birthDay, profileImage, followers, following, posts
        case postCount, commentCount, likeCount, followerCount, followingCount
    }

    /// G2 (decision 0021): image paths with a leading slash, and `email` on every profile, because WeeMo requires
    /// the key on other users' profiles too: there it is `""`, so nobody's address is shown to others.
    var g2: ProfileJSON {
        var profile = self
        profile.email = email ?? ""
        profile.profileImage = G2Path.encode(profileImage)
        profile.followers = followers.map(\.g2)
        profile.following = following.map(\.g2)
        return profile
    }
}

/// `POST`/`DELETE /v1/follow/{user_id}` (§2.5): `{nick, opponent_nick, following_status}`.
/// G2 adds `follow_status` (the same value).
struct FollowJSON: Encodable, Sendable {
    var nick: String
    var opponentNick: String
    var followingStatus: Bool
    var followStatus: Bool? = nil

    enum CodingKeys: String, CodingKey {
        case nick, opponentNick = "opponent_nick", followingStatus = "following_status", followStatus = "follow_status"
    }
}

/// `{data: [...]}` (§3.5).
struct DataList<Item: Encodable & Sendable>: Encodable, Sendable {
    var data: [Item]
}
