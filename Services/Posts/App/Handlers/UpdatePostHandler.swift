import Foundation
import Hummingbird
import SNSPlatform

/// `PUT /v1/posts/{post_id}` → §3.1 Post. Owner only (445); 410 when the post is gone. Absent keys keep
/// their value, `null` clears one. The change and `post-updated` commit in one transaction.
struct UpdatePostHandler: Sendable {
    let deps: PostsDependencies

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let postId = try context.parameters.require("post_id")
        let body = try await request.decodeJSON(as: PostBody.self, context: context)
        try validate(body, owner: user.userId, rules: deps.rules)
        let updated = try await deps.postgres.transaction(logger: context.logger) { connection -> PostJSONText? in
            guard var (post, seq) = try await deps.store.lock(postId: postId, on: connection, logger: context.logger) else {
                throw PostsDependencies.postGone
            }
            guard post.userId == user.userId else { throw APIError.notOwner() }
            post.apply(body)
            post.updatedAt = Date()
            try await deps.store.update(post, seq: seq, on: connection, logger: context.logger)
            try await deps.outbox.append(PostUpdated(post: post.snapshot), aggregateId: post.postId,
                                         trace: context.trace, on: connection, logger: context.logger)
            return try await deps.queries.one(postId: postId, on: connection, logger: context.logger)
        }
        guard let updated else { throw PostsDependencies.postGone }
        return .post(updated)
    }
}
