import Foundation
import Hummingbird
import SNSPlatform

/// `POST /v1/posts/{post_id}/like` and `/like-2` with `{like_status}` = the desired state (API conventions §10.8), and
/// G0's `POST /post/like/{post_id}` with no body = a toggle (API conventions §4). Repeating the current state is a no-op
/// that answers 200 with it and publishes nothing; a real change publishes `post-liked` / `post-unliked` in the
/// same transaction. 410 when the post is gone.
struct LikeHandler: Sendable {
    let deps: PostsDependencies
    let kind: LikeKind

    /// What the caller asks for.
    enum Desire: Sendable {
        /// G1: this state.
        case state(Bool)
        /// G0: the opposite of the current state.
        case toggle
    }

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let postId = try context.parameters.require("post_id")
        let body = try await request.decodeJSON(as: LikeStatus.self, context: context)
        let status = try await apply(.state(body.likeStatus), postId: postId, userId: user.userId, context: context)
        return try .json(LikeStatus(likeStatus: status))
    }

    /// G0 `POST /post/like/{post_id}` (no body) → `{like_status}` = the new state.
    func toggle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let postId = try context.parameters.require("post_id")
        let status = try await apply(.toggle, postId: postId, userId: user.userId, context: context)
        return try .json(LikeStatus(likeStatus: status))
    }

    /// Sets the caller's like and returns the resulting state. A toggle reads the current state under the same
    /// locks as the change (the user's read-model row, then the post's row).
    func apply(_ desire: Desire, postId: String, userId: String, context: APIRequestContext) async throws -> Bool {
        let ticket = deps.outbox.readYourWrites()
        let state = try await deps.postgres.transaction(logger: context.logger) { connection -> Bool in
            let withdrawn = try await deps.store.ensureUser(userId, on: connection, logger: context.logger)
            guard
                let (post, _) = try await deps.store.lock(
                    postId: postId, shared: true, on: connection, logger: context.logger)
            else {
                throw PostsDependencies.postGone
            }
            guard !withdrawn else { throw APIError.unauthorized("탈퇴한 계정입니다. (account withdrawn)") }
            let desired: Bool
            switch desire {
            case .state(let state):
                desired = state
            case .toggle:
                desired = try await !deps.store.likes(
                    postId: postId, kind: kind, userId: userId, on: connection, logger: context.logger)
            }
            let now = Date()
            let changed = try await deps.store.setLike(
                postId: postId, kind: kind, userId: userId, desired: desired,
                at: now, on: connection, logger: context.logger)
            guard changed else { return desired }
            let change = LikeChange(
                postId: postId, userId: userId, postUserId: post.userId, productId: post.productId, kind: kind, at: now)
            if desired {
                try await deps.outbox.append(
                    PostLiked(like: change), aggregateId: postId, trace: context.trace, awaitedBy: ticket,
                    on: connection, logger: context.logger)
            } else {
                try await deps.outbox.append(
                    PostUnliked(like: change), aggregateId: postId, trace: context.trace, awaitedBy: ticket,
                    on: connection, logger: context.logger)
            }
            return desired
        }
        await ticket.wait(logger: context.logger)  // counts and rankings in social (decision 0013)
        return state
    }
}
