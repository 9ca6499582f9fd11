import Logging
import PostgresNIO
import SNSPlatform

/// Consumer `media-references` (topics `sns.posts`, `sns.users`, `sns.chats`): keeps `references` — which files are still
/// shown somewhere — so the garbage collector knows what it may delete. Runs inside the idempotent
/// consumer's transaction, so each event applies exactly once.
///
/// - `post-created` / `post-updated`: the post references exactly `post.files` (the snapshot is whole).
/// - `post-deleted`: the post references nothing.
/// - `user-registered` / `user-updated`: the user's profile references exactly its `profileImage`.
/// - `chat-message-sent`: the message references its `files` (messages are never edited or deleted).
/// - `user-withdrawn`: every reference of the user's posts, profile and messages goes; later events of that user
///   (they travel on other topics, so may arrive after) add nothing.
/// - anything else: ignored.
///
/// A first snapshot that references nothing is left alone (`changesAnything`).
///
/// Every kind of holder is written by one statement (`MediaCatalog.replaceReferences`); a batch's run of distinct
/// posts' snapshots is one statement too.
///
/// Paths that are not well-formed media paths are dropped (they cannot name a stored file).
package struct MediaReferencesProjection: EventHandler {
    let catalog: MediaCatalog

    package init(catalog: MediaCatalog) {
        self.catalog = catalog
    }

    /// The types `handle` acts on; the others are left alone, without a transaction (`EventHandler.handles`).
    package func handles(_ type: EventType) -> Bool {
        switch type {
        case .userRegistered, .userUpdated, .userWithdrawn, .postCreated, .postUpdated, .postDeleted,
            .chatMessageSent:
            true
        case .commentCreated, .commentDeleted, .postLiked, .postUnliked, .userFollowed, .userUnfollowed,
            .purchaseCompleted, .mediaStored:
            false
        }
    }

    /// A holder's first snapshot with no media path in it changes nothing (a new post without files, a new user
    /// without a profile image, a message without files: nothing referenced them before, and messages never change),
    /// so the consumer leaves it alone: most new posts then cost media no transaction. Applying it after a later
    /// snapshot of the same holder (a redelivery) would wrongly clear that snapshot's references; leaving it alone
    /// keeps them. A payload that does not decode is handed on, to fail where it is applied.
    package func changesAnything(_ event: IncomingEvent) -> Bool {
        let paths: [String]
        switch event.eventType {
        case .postCreated:
            guard let created = try? event.payload(as: PostCreated.self) else { return true }
            paths = created.post.files
        case .userRegistered:
            guard let user = try? event.payload(as: UserRegistered.self) else { return true }
            paths = user.profileImage.map { [$0] } ?? []
        case .chatMessageSent:
            guard let message = try? event.payload(as: ChatMessageSent.self) else { return true }
            paths = message.files
        default:
            return true
        }
        return !Self.mediaPaths(paths).isEmpty
    }

    package func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws {
        switch event.eventType {
        case .postCreated:
            try await reference(
                posts: [try event.payload(as: PostCreated.self).post], connection: connection, logger: logger)
        case .postUpdated:
            try await reference(
                posts: [try event.payload(as: PostUpdated.self).post], connection: connection, logger: logger)
        case .postDeleted:
            let deleted = try event.payload(as: PostDeleted.self)
            try await catalog.removeReferences(holder: .post, id: deleted.postId, on: connection, logger: logger)
        case .userRegistered:
            let user = try event.payload(as: UserRegistered.self)
            try await reference(
                profileOf: user.userId, image: user.profileImage, connection: connection, logger: logger)
        case .userUpdated:
            let user = try event.payload(as: UserUpdated.self)
            try await reference(
                profileOf: user.userId, image: user.profileImage, connection: connection, logger: logger)
        case .chatMessageSent:
            let message = try event.payload(as: ChatMessageSent.self)
            try await catalog.replaceReferences(
                holder: .chat,
                [.init(id: message.chatId, ownerId: message.sender.userId, paths: Self.mediaPaths(message.files))],
                on: connection, logger: logger)
        case .userWithdrawn:
            let withdrawn = try event.payload(as: UserWithdrawn.self)
            try await catalog.withdraw(
                userId: withdrawn.userId, at: withdrawn.withdrawnAt, on: connection, logger: logger)
        default:
            return
        }
    }

    /// A post snapshot is one statement, which the consumer runs together with the event's record.
    package func oneStatement(for event: IncomingEvent) throws -> (any OneStatementEffect)? {
        switch event.eventType {
        case .postCreated: Self.referencing(posts: [try event.payload(as: PostCreated.self).post])
        case .postUpdated: Self.referencing(posts: [try event.payload(as: PostUpdated.self).post])
        default: nil
        }
    }

    /// A batch: runs of distinct posts' snapshots (`PostSnapshotRuns`) in one statement each, every other event one by
    /// one, in order: the same references as applying them one by one.
    package func handle(batch events: [IncomingEvent], connection: PostgresConnection, logger: Logger) async throws {
        try await PostSnapshotRuns.apply(
            events,
            run: { try await reference(posts: $0, connection: connection, logger: logger) },
            other: { try await handle($0, connection: connection, logger: logger) })
    }

    /// Distinct posts' snapshots: each post references exactly its files, or nothing if its owner withdrew.
    private func reference(posts: [PostSnapshot], connection: PostgresConnection, logger: Logger) async throws {
        for try await _ in try await connection.execute(Self.referencing(posts: posts), logger: logger) {}
    }

    static func referencing(posts: [PostSnapshot]) -> ReplaceReferences {
        MediaCatalog.replacingReferences(
            holder: .post, posts.map { .init(id: $0.postId, ownerId: $0.userId, paths: mediaPaths($0.files)) })
    }

    private func reference(profileOf userId: String, image: String?, connection: PostgresConnection, logger: Logger)
        async throws
    {
        try await catalog.replaceReferences(
            holder: .profile, [.init(id: userId, ownerId: userId, paths: Self.mediaPaths(image.map { [$0] } ?? []))],
            on: connection, logger: logger)
    }

    /// The well-formed media paths among `files`, in their canonical string form.
    static func mediaPaths(_ files: [String]) -> [String] {
        files.compactMap { MediaPath($0)?.string }
    }
}
