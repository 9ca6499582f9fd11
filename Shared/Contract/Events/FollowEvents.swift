import Foundation

/// One edge of the follow graph; `user-followed` / `user-unfollowed` (keyed by the follower id).
public struct FollowEdge: Codable, Sendable, Equatable {
    public var followerId: String
    public var followeeId: String
    public var at: Date

    public init(followerId: String, followeeId: String, at: Date) {
        self.followerId = followerId
        self.followeeId = followeeId
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case followerId = "follower_id", followeeId = "followee_id", at
    }
}

/// `user-followed`, published by the social graph service.
public struct UserFollowed: EventPayload, Equatable {
    public static let eventType = EventType.userFollowed
    public var edge: FollowEdge
    public init(edge: FollowEdge) { self.edge = edge }
}

/// `user-unfollowed`, published by the social graph service.
public struct UserUnfollowed: EventPayload, Equatable {
    public static let eventType = EventType.userUnfollowed
    public var edge: FollowEdge
    public init(edge: FollowEdge) { self.edge = edge }
}
