import Foundation
import SNSPlatform

/// A like (`like`) or a second like (`like2`: scrap, bookmark, cart) as the caller's desired state (API conventions
/// §10.8). Repeating the current state changes nothing and publishes nothing; a real change publishes
/// `post-liked` / `post-unliked` in the same transaction. 410 when the post is gone.
struct Likes: Sendable {
    let deps: PostsDependencies
    let kind: LikeKind

    /// What the caller asks for.
    enum Desire: Sendable {
        /// G1: this state.
        case state(Bool)
        /// G0: the opposite of the current state.
        case toggle
    }

    /// Sets the caller's like and returns the resulting state, in one statement (`SetLike`): the user's and the post's
    /// locks, the like, and its event only if it changed (`PostStore.setLike` runs it again when a concurrent change
    /// by the same user may have made its view of the like stale).
    func apply(_ desire: Desire, postId: String, by caller: Caller) async throws -> Bool {
        let ticket = deps.outbox.readYourWrites()
        // The post's author and product, and the like's time (taken after the post's lock), are filled in by the
        // statement; an unlike's type too. Both kinds of event are awaited from the same projections
        // (`ReadYourWrites.groups`).
        let change = LikeChange(
            postId: postId, userId: caller.userId, postUserId: "", productId: "", kind: kind, at: Date())
        let (envelope, awaitedBy) = deps.outbox.envelope(
            PostLiked(like: change), aggregateId: postId, trace: caller.trace, awaitedBy: ticket)
        let liked = try deps.outbox.row(
            envelope, topic: PostLiked.eventType.topic, traceparent: caller.trace.traceparent, awaitedBy: awaitedBy,
            wakingAfterCommit: ticket)
        let desired: Bool? =
            switch desire {
            case .state(let state): state
            case .toggle: nil
            }
        let statement = SetLike(
            postId: postId, kind: kind.code, userId: caller.userId, desired: desired, liked: liked,
            unlikedType: PostUnliked.eventType.rawValue)
        guard let result = try await deps.store.setLike(statement, logger: caller.logger) else {
            throw PostsDependencies.postGone
        }
        if !result.changed {  // nothing was written: nothing to wait for, nothing for the relay
            ticket.withdraw(envelope.eventId)
            ticket.cancelRelayWake()
        }
        await ticket.wait(logger: caller.logger)  // counts and rankings in social (decision 0013)
        return result.state
    }
}
