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

    /// Sets the caller's like and returns the resulting state. A toggle reads the current state under the same
    /// locks as the change (the user's read-model row, then the post's row).
    func apply(_ desire: Desire, postId: String, by caller: Caller) async throws -> Bool {
        let (userId, logger) = (caller.userId, caller.logger)
        let ticket = deps.outbox.readYourWrites()
        let state = try await deps.postgres.transaction(logger: logger) { connection -> Bool in
            // The account check of this route (its middleware checks only the token): 401 if withdrawn.
            try await deps.store.ensureUser(userId, on: connection, logger: logger)
            guard
                let post = try await deps.store.lockForReaction(postId: postId, on: connection, logger: logger)
            else {
                throw PostsDependencies.postGone
            }
            let desired: Bool
            switch desire {
            case .state(let state):
                desired = state
            case .toggle:
                desired = try await !deps.store.likes(
                    postId: postId, kind: kind, userId: userId, on: connection, logger: logger)
            }
            let now = Date()
            let changed = try await deps.store.setLike(
                postId: postId, kind: kind, userId: userId, desired: desired, at: now, on: connection, logger: logger)
            guard changed else { return desired }
            let change = LikeChange(
                postId: postId, userId: userId, postUserId: post.userId, productId: post.productId, kind: kind, at: now)
            if desired {
                try await deps.outbox.append(
                    PostLiked(like: change), aggregateId: postId, trace: caller.trace, awaitedBy: ticket,
                    on: connection, logger: logger)
            } else {
                try await deps.outbox.append(
                    PostUnliked(like: change), aggregateId: postId, trace: caller.trace, awaitedBy: ticket,
                    on: connection, logger: logger)
            }
            return desired
        }
        await ticket.wait(logger: logger)  // counts and rankings in social (decision 0013)
        return state
    }
}
