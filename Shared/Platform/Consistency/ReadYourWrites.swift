import Foundation

/// Read-your-writes across services (decision 0013): the apps were written against one server with one database,
/// so whatever a client has just done, its very next request — to any service — must see. A write whose event
/// feeds another service's read model is therefore answered only once those projections have applied the event
/// (or a bounded wait has passed; `sns_read_your_writes_timeouts_total` counts that).
///
/// This table says which projections a client can observe right after each kind of write, i.e. which consumer
/// groups the writing handler waits for.
package enum ReadYourWrites {
    /// PostgreSQL `NOTIFY` channel on which consumers announce `"<group> <event id>"` after applying (committing)
    /// an awaited event: one per writing service (the event's `producer`), so that only the writer's replicas
    /// receive the announcement, not every service's barrier. (PostgreSQL still wakes every listening backend of
    /// the database for each `NOTIFY`; the services are spared.) A channel name is at most 63 bytes.
    package static func channel(writer: String) -> String {
        String(decoding: ("sns_applied_" + writer).utf8.prefix(63), as: UTF8.self)
    }

    /// Kafka header marking an event that a writer is waiting for: its value names the consumer groups it waits for,
    /// comma-separated, and only those announce it. `1` (events written before 2026-11-27) means every group.
    package static let awaitedHeader = "sns-awaited"

    /// Kafka header of an awaited event naming where its writer hears announcements by datagram (`ip:port`,
    /// `AnnouncementSocket`, decision 0050); without it consumers announce by `NOTIFY` on the writer's channel.
    package static let awaitedAtHeader = "sns-awaited-at"

    static func awaitedHeaderValue(_ groups: [String]) -> String { groups.joined(separator: ",") }

    /// Whether a header value asks `group` to announce the event.
    static func header(_ value: String, awaits group: String) -> Bool {
        value == "1" || value.split(separator: ",").contains { $0 == group }
    }

    package static func groups(awaiting type: EventType) -> [String] {
        switch type {
        // A new account: social serves its profile, follows and search; posts shows its nick on what it writes;
        // chat lets others open a room with it.
        case .userRegistered: [ConsumerGroup.posts, ConsumerGroup.social, ConsumerGroup.chat]
        // A new nick or image: profiles, follower lists and search (social), creators of posts and comments (posts),
        // participants and senders (chat).
        case .userUpdated: [ConsumerGroup.posts, ConsumerGroup.social, ConsumerGroup.chat]
        // Every service refuses a withdrawn user's token through its own read model: all of them must know.
        case .userWithdrawn:
            [ConsumerGroup.posts, ConsumerGroup.social, ConsumerGroup.market, ConsumerGroup.media, ConsumerGroup.chat]
        // The author's profile lists and counts (social) and the price a buyer pays (market).
        case .postCreated, .postUpdated, .postDeleted: [ConsumerGroup.social, ConsumerGroup.market]
        // Counts and rankings in social.
        case .commentCreated, .commentDeleted, .postLiked, .postUnliked: [ConsumerGroup.social]
        // The following feed lives in posts.
        case .userFollowed, .userUnfollowed: [ConsumerGroup.posts]
        // The buyer on the post.
        case .purchaseCompleted: [ConsumerGroup.posts]
        // Pushed to sockets; nothing a client reads through a projection.
        case .mediaStored, .chatMessageSent: []
        }
    }

    /// The notification payload for one applied event.
    static func announcement(group: String, eventId: UUID) -> String {
        "\(group) \(eventId.uuidString.lowercased())"
    }

    static func parse(_ payload: String) -> (group: String, eventId: UUID)? {
        guard let space = payload.lastIndex(of: " "),
            let eventId = UUID(uuidString: String(payload[payload.index(after: space)...]))
        else { return nil }
        return (String(payload[..<space]), eventId)
    }
}
