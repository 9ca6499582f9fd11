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
        return .post(try await update(postId: postId, body: body, userId: user.userId, context: context))
    }

    /// The edit itself, shared by the G1 (JSON) and G0 (multipart) encodings: the committed post as §3.1 JSON.
    func update(postId: String, body: PostBody, userId: String, context: APIRequestContext) async throws -> PostJSONText
    {
        try validate(body, owner: userId, rules: deps.rules)
        let ticket = deps.outbox.readYourWrites()
        let updated = try await deps.postgres.transaction(logger: context.logger) { connection -> PostJSONText? in
            guard var (post, seq) = try await deps.store.lock(postId: postId, on: connection, logger: context.logger)
            else {
                throw PostsDependencies.postGone
            }
            guard post.userId == userId else { throw APIError.notOwner() }
            post.apply(body)
            post.updatedAt = Date()
            try await deps.store.update(post, seq: seq, on: connection, logger: context.logger)
            try await deps.outbox.append(
                PostUpdated(post: post.snapshot), aggregateId: post.postId,
                trace: context.trace, awaitedBy: ticket, on: connection, logger: context.logger)
            return try await deps.queries.one(postId: postId, on: connection, logger: context.logger)
        }
        await ticket.wait(logger: context.logger)
        guard let updated else { throw PostsDependencies.postGone }
        return updated
    }
}
