import Foundation
import Hummingbird
import SNSPlatform

/// `POST /v1/posts/{post_id}/like` and `/like-2` with `{like_status}` = the desired state (contract §10.8).
/// Repeating the current state is a no-op that answers 200 with it and publishes nothing; a real change
/// publishes `post-liked` / `post-unliked` in the same transaction. 410 when the post is gone.
struct LikeHandler: Sendable {
    let deps: PostsDependencies
    let kind: LikeKind

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let postId = try context.parameters.require("post_id")
        let body = try await request.decodeJSON(as: LikeStatus.self, context: context)
        try await deps.postgres.transaction(logger: context.logger) { connection in
            guard let (post, _) = try await deps.store.lock(postId: postId, shared: true, on: connection, logger: context.logger) else {
                throw PostsDependencies.postGone
            }
            let withdrawn = try await deps.store.ensureUser(user.userId, on: connection, logger: context.logger)
            guard !withdrawn else { throw APIError.unauthorized("탈퇴한 계정입니다. (account withdrawn)") }
            let now = Date()
            let changed = try await deps.store.setLike(postId: postId, kind: kind, userId: user.userId, desired: body.likeStatus,
                                                       at: now, on: connection, logger: context.logger)
            guard changed else { return }
            let change = LikeChange(postId: postId, userId: user.userId, postUserId: post.userId, productId: post.productId, kind: kind, at: now)
            if body.likeStatus {
                try await deps.outbox.append(PostLiked(like: change), aggregateId: postId, trace: context.trace, on: connection, logger: context.logger)
            } else {
                try await deps.outbox.append(PostUnliked(like: change), aggregateId: postId, trace: context.trace, on: connection, logger: context.logger)
            }
        }
        return try .json(LikeStatus(likeStatus: body.likeStatus))
    }
}
