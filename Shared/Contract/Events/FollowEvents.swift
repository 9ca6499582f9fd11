import Foundation

/// One edge of the follow graph; `user-followed` / `user-unfollowed` (keyed by the follower id).
package struct FollowEdge: Codable, Sendable, Equatable {
    package var followerId: String
    package var followeeId: String
    package var at: Date

    package init(followerId: String, followeeId: String, at: Date) {
        self.followerId = followerId
        self.followeeId = followeeId
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case followerId = "follower_id", followeeId = "followee_id", at
    }
}

/// `user-followed`, published by the social graph service.
package struct UserFollowed: EventPayload, Equatable {
    package static let eventType = EventType.userFollowed
    package var edge: FollowEdge
    package init(edge: FollowEdge) { self.edge = edge }
}

/// `user-unfollowed`, published by the social graph service.
package struct UserUnfollowed: EventPayload, Equatable {
    package static let eventType = EventType.userUnfollowed
    package var edge: FollowEdge
    package init(edge: FollowEdge) { self.edge = edge }
}
