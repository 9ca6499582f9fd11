/// The system's Kafka topics. One topic per aggregate kind; the key is the aggregate id.
/// Partition counts are what the dev broker and the docker-compose init step create.
package enum Topic {
    package static let users = "sns.users"
    package static let posts = "sns.posts"
    package static let follows = "sns.follows"
    package static let payments = "sns.payments"
    package static let media = "sns.media"
    /// Chat messages, keyed by room: what every chat replica pushes to the sockets it holds.
    package static let chats = "sns.chats"
    /// Messages a consumer gave up on, with the failure reason in headers (`EventHeader.dlq*`).
    package static let deadLetter = "sns.dead-letter"

    package static let catalog: [(name: String, partitions: Int)] = [
        (users, 3), (posts, 6), (follows, 3), (payments, 3), (media, 3), (chats, 3), (deadLetter, 1),
    ]
}

/// Every event type in the system, with the topic it travels on.
package enum EventType: String, Sendable, CaseIterable {
    case userRegistered = "user-registered"
    case userUpdated = "user-updated"
    case userWithdrawn = "user-withdrawn"
    case postCreated = "post-created"
    case postUpdated = "post-updated"
    case postDeleted = "post-deleted"
    case commentCreated = "comment-created"
    case commentDeleted = "comment-deleted"
    case postLiked = "post-liked"
    case postUnliked = "post-unliked"
    case userFollowed = "user-followed"
    case userUnfollowed = "user-unfollowed"
    case purchaseCompleted = "purchase-completed"
    case mediaStored = "media-stored"
    case chatMessageSent = "chat-message-sent"

    package var topic: String {
        switch self {
        case .userRegistered, .userUpdated, .userWithdrawn: Topic.users
        // A post's comments and likes share its topic and key, so they stay ordered with its deletion.
        case .postCreated, .postUpdated, .postDeleted, .commentCreated, .commentDeleted, .postLiked, .postUnliked:
            Topic.posts
        case .userFollowed, .userUnfollowed: Topic.follows
        case .purchaseCompleted: Topic.payments
        case .mediaStored: Topic.media
        case .chatMessageSent: Topic.chats
        }
    }
}

/// A payload type that knows its event type (and hence its topic).
package protocol EventPayload: Codable, Sendable {
    static var eventType: EventType { get }
    static var schemaVersion: Int { get }
}

extension EventPayload {
    package static var schemaVersion: Int { 1 }
}
