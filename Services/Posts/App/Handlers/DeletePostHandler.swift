import Foundation
import Hummingbird
import SNSPlatform

/// `DELETE /v1/posts/{post_id}` → 200 with an empty body (clients read none; some check for exactly 200);
/// G0 `DELETE /post/{post_id}` → `{_id}` (API conventions §4).
/// Owner only (445); 410 when gone. Its comments, likes and hashtags go with it; `post-deleted` releases its files.
struct DeletePostHandler: Sendable {
    let deps: PostsDependencies
    var format: WireFormat = .g1

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let postId = try context.parameters.require("post_id")
        let ticket = deps.outbox.readYourWrites()
        try await deps.postgres.transaction(logger: context.logger) { connection in
            guard let (post, _) = try await deps.store.lock(postId: postId, on: connection, logger: context.logger)
            else {
                throw PostsDependencies.postGone
            }
            guard post.userId == user.userId else { throw APIError.notOwner() }
            try await deps.store.delete(postId: postId, on: connection, logger: context.logger)
            try await deps.outbox.append(
                PostDeleted(
                    postId: postId, userId: post.userId, productId: post.productId, files: post.files, deletedAt: Date()
                ),
                aggregateId: postId, trace: context.trace, awaitedBy: ticket, on: connection, logger: context.logger)
        }
        await ticket.wait(logger: context.logger)
        context.logger.info("post deleted", metadata: ["post_id": "\(postId)"])
        switch format {
        case .g1: return Response(status: .ok)
        case .g0: return try .json(G0DeletedPost(id: postId))
        }
    }
}
