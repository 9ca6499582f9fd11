import Foundation
import SNSPlatform

extension G0User {
    /// The G1 §3.2 user, re-spelled.
    init(_ user: UserJSON) {
        self.init(id: user.userId, nick: user.nick, profile: user.profileImage)
    }
}

/// G0 profile (API conventions §4): `{posts, followers, following, _id, email?, nick, phoneNum?, birthDay?, profile?}` —
/// `email`, `phoneNum`, `birthDay` only on one's own (`/profile/me`), as in G1. G1's counts are not part of G0.
struct G0Profile: Encodable, Sendable {
    var posts: [String]
    var followers: [G0User]
    var following: [G0User]
    var id: String
    var email: String?
    var nick: String
    var phoneNum: String?
    var birthDay: String?
    var profile: String?

    enum CodingKeys: String, CodingKey {
        case posts, followers, following, id = "_id", email, nick, phoneNum, birthDay, profile
    }

    init(_ profile: ProfileJSON) {
        posts = profile.posts
        followers = profile.followers.map(G0User.init)
        following = profile.following.map(G0User.init)
        id = profile.userId
        email = profile.email
        nick = profile.nick
        phoneNum = profile.phoneNum
        birthDay = profile.birthDay
        self.profile = profile.profileImage
    }
}

/// G0 `POST`/`DELETE /follow/{user_id}` → `{user, following, following_status}`: the caller's id and the
/// other user's id (TaeYoon17 `FollowResponse`, Best Moment `FollowerStatusResponse` decode both as strings).
struct G0FollowJSON: Encodable, Sendable {
    var user: String
    var following: String
    var followingStatus: Bool

    enum CodingKeys: String, CodingKey { case user, following, followingStatus = "following_status" }
}
