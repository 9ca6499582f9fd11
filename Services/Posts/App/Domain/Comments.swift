import Foundation
import SNSPlatform

/// Comments (API conventions §2.4): create, edit, delete. 410 when the post or the comment is gone, 445 when the
/// caller did not write the comment. Creation and deletion commit with their event (keyed by the post id).
struct Comments: Sendable {
    let deps: PostsDependencies

    /// A new comment → §3.3 (its creator as the read model knows it).
    func create(postId: String, content: String, by caller: Caller) async throws -> CommentJSON {
        let (userId, logger) = (caller.userId, caller.logger)
        let content = try deps.rules.checkComment(content)
        let now = Date()
        let comment = PostStore.CommentRecord(
            commentId: ObjectID.generate(now: now), postId: postId, userId: userId, content: content, createdAt: now)
        let ticket = deps.outbox.readYourWrites()
        let creator = try await deps.postgres.transaction(logger: logger) { connection -> CreatorJSON in
            // The account check of this route (its middleware checks only the token): 401 if withdrawn.
            try await deps.store.ensureUser(userId, on: connection, logger: logger)
            guard
                let post = try await deps.store.lockForReaction(postId: postId, on: connection, logger: logger)
            else {
                throw PostsDependencies.postGone
            }
            try await deps.store.insertComment(comment, on: connection, logger: logger)
            try await deps.outbox.append(
                CommentCreated(
                    commentId: comment.commentId, postId: postId, userId: userId, postUserId: post.userId,
                    productId: post.productId, createdAt: now),
                aggregateId: postId, trace: caller.trace, awaitedBy: ticket, on: connection, logger: logger)
            return try await deps.store.creator(userId: userId, on: connection, logger: logger)
        }
        await ticket.wait(logger: logger)
        return CommentJSON(commentId: comment.commentId, content: content, createdAt: now, creator: creator)
    }

    /// An edit of the caller's comment → §3.3. Empty content → 400.
    func update(postId: String, commentId: String, content: String, by caller: Caller) async throws -> CommentJSON {
        let (userId, logger) = (caller.userId, caller.logger)
        let content = try deps.rules.checkComment(content)
        let (comment, creator) = try await deps.postgres.transaction(logger: logger) { connection in
            guard try await deps.store.lockForReaction(postId: postId, on: connection, logger: logger) != nil else {
                throw PostsDependencies.postGone
            }
            guard
                let comment = try await deps.store.lockComment(
                    postId: postId, commentId: commentId, on: connection, logger: logger)
            else {
                throw PostsDependencies.commentGone
            }
            guard comment.userId == userId else { throw APIError.notOwner() }
            try await deps.store.updateComment(
                commentId: commentId, content: content, at: Date(), on: connection, logger: logger)
            return (comment, try await deps.store.creator(userId: userId, on: connection, logger: logger))
        }
        return CommentJSON(commentId: commentId, content: content, createdAt: comment.createdAt, creator: creator)
    }

    /// A deletion of the caller's comment.
    func delete(postId: String, commentId: String, by caller: Caller) async throws {
        let (userId, logger) = (caller.userId, caller.logger)
        let ticket = deps.outbox.readYourWrites()
        try await deps.postgres.transaction(logger: logger) { connection in
            guard
                let post = try await deps.store.lockForReaction(postId: postId, on: connection, logger: logger)
            else {
                throw PostsDependencies.postGone
            }
            guard
                let comment = try await deps.store.lockComment(
                    postId: postId, commentId: commentId, on: connection, logger: logger)
            else {
                throw PostsDependencies.commentGone
            }
            guard comment.userId == userId else { throw APIError.notOwner() }
            try await deps.store.deleteComment(commentId: commentId, on: connection, logger: logger)
            try await deps.outbox.append(
                CommentDeleted(
                    commentId: commentId, postId: postId, userId: userId, productId: post.productId, deletedAt: Date()),
                aggregateId: postId, trace: caller.trace, awaitedBy: ticket, on: connection, logger: logger)
        }
        await ticket.wait(logger: logger)
    }
}
