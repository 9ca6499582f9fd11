import Foundation
import Hummingbird
import SNSPlatform

/// Comments (API conventions §2.4): create, edit, delete. 410 when the post or the comment is gone, 445 when the
/// caller did not write the comment. Each change commits with its event (keyed by the post id).
/// The same handlers serve G0's singular paths (`/post/{id}/comment/{comment_id}`, API conventions §4) in `format` `.g0`:
/// `{_id, content, time, creator}`, and `{postID, commentID}` for a deletion.
struct CommentHandlers: Sendable {
    let deps: PostsDependencies
    var format: WireFormat = .g1

    /// `POST /v1/posts/{post_id}/comments` → §3.3 Comment.
    func create(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let postId = try context.parameters.require("post_id")
        let body = try await request.decodeJSON(as: CommentBody.self, context: context)
        let content = try deps.rules.checkComment(body.content)
        let now = Date()
        let comment = PostStore.CommentRecord(
            commentId: ObjectID.generate(now: now), postId: postId, userId: user.userId,
            content: content, createdAt: now)
        let ticket = deps.outbox.readYourWrites()
        let creator = try await deps.postgres.transaction(logger: context.logger) { connection -> CreatorJSON in
            let withdrawn = try await deps.store.ensureUser(user.userId, on: connection, logger: context.logger)
            guard
                let (post, _) = try await deps.store.lock(
                    postId: postId, shared: true, on: connection, logger: context.logger)
            else {
                throw PostsDependencies.postGone
            }
            guard !withdrawn else { throw APIError.unauthorized("탈퇴한 계정입니다. (account withdrawn)") }
            try await deps.store.insertComment(comment, on: connection, logger: context.logger)
            try await deps.outbox.append(
                CommentCreated(
                    commentId: comment.commentId, postId: postId, userId: user.userId, postUserId: post.userId,
                    productId: post.productId, createdAt: now),
                aggregateId: postId, trace: context.trace, awaitedBy: ticket, on: connection, logger: context.logger)
            return try await deps.store.creator(userId: user.userId, on: connection, logger: context.logger)
        }
        await ticket.wait(logger: context.logger)
        return try .comment(
            CommentJSON(commentId: comment.commentId, content: content, createdAt: now, creator: creator), format)
    }

    /// `PUT /v1/posts/{post_id}/comments/{comment_id}` → §3.3 Comment. Empty content → 400.
    func update(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let postId = try context.parameters.require("post_id")
        let commentId = try context.parameters.require("comment_id")
        let body = try await request.decodeJSON(as: CommentBody.self, context: context)
        let content = try deps.rules.checkComment(body.content)
        let (comment, creator) = try await deps.postgres.transaction(logger: context.logger) { connection in
            guard try await deps.store.lock(postId: postId, shared: true, on: connection, logger: context.logger) != nil
            else {
                throw PostsDependencies.postGone
            }
            guard
                let comment = try await deps.store.lockComment(
                    postId: postId, commentId: commentId, on: connection, logger: context.logger)
            else {
                throw PostsDependencies.commentGone
            }
            guard comment.userId == user.userId else { throw APIError.notOwner() }
            try await deps.store.updateComment(
                commentId: commentId, content: content, at: Date(), on: connection, logger: context.logger)
            return (comment, try await deps.store.creator(userId: user.userId, on: connection, logger: context.logger))
        }
        return try .comment(
            CommentJSON(commentId: commentId, content: content, createdAt: comment.createdAt, creator: creator), format)
    }

    /// `DELETE /v1/posts/{post_id}/comments/{comment_id}` → 200, empty body.
    func delete(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let postId = try context.parameters.require("post_id")
        let commentId = try context.parameters.require("comment_id")
        let ticket = deps.outbox.readYourWrites()
        try await deps.postgres.transaction(logger: context.logger) { connection in
            guard
                let (post, _) = try await deps.store.lock(
                    postId: postId, shared: true, on: connection, logger: context.logger)
            else {
                throw PostsDependencies.postGone
            }
            guard
                let comment = try await deps.store.lockComment(
                    postId: postId, commentId: commentId, on: connection, logger: context.logger)
            else {
                throw PostsDependencies.commentGone
            }
            guard comment.userId == user.userId else { throw APIError.notOwner() }
            try await deps.store.deleteComment(commentId: commentId, on: connection, logger: context.logger)
            try await deps.outbox.append(
                CommentDeleted(
                    commentId: commentId, postId: postId, userId: user.userId, productId: post.productId,
                    deletedAt: Date()),
                aggregateId: postId, trace: context.trace, awaitedBy: ticket, on: connection, logger: context.logger)
        }
        await ticket.wait(logger: context.logger)
        switch format {
        case .g1: return Response(status: .ok)
        case .g0: return try .json(G0DeletedComment(postId: postId, commentId: commentId))
        }
    }
}
