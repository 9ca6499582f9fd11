import Foundation
import Hummingbird
import SNSPlatform

/// `POST /v1/posts` → §3.1 Post. The post, its hashtags and `post-created` commit in one transaction.
struct CreatePostHandler: Sendable {
    let deps: PostsDependencies

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: PostBody.self, context: context)
        try validate(body, owner: user.userId, rules: deps.rules)
        let now = Date()
        let post = PostRecord(
            postId: ObjectID.generate(now: now), userId: user.userId, productId: body.productId, title: body.title,
            content: body.content, content1: body.content1, content2: body.content2, content3: body.content3,
            content4: body.content4, content5: body.content5, price: body.price, files: body.files ?? [],
            hashTags: Hashtags.extract(from: body.content), createdAt: now, updatedAt: now)
        try await deps.postgres.transaction(logger: context.logger) { connection in
            let withdrawn = try await deps.store.ensureUser(user.userId, on: connection, logger: context.logger)
            guard !withdrawn else { throw APIError.unauthorized("탈퇴한 계정입니다. (account withdrawn)") }
            try await deps.store.insert(post, authorWithdrawn: false, on: connection, logger: context.logger)
            try await deps.outbox.append(PostCreated(post: post.snapshot), aggregateId: post.postId,
                                         trace: context.trace, on: connection, logger: context.logger)
        }
        context.logger.info("post created", metadata: ["post_id": "\(post.postId)"])
        guard let created = try await deps.queries.one(postId: post.postId, logger: context.logger) else { throw PostsDependencies.postGone }
        return try .json(created)
    }
}

/// Field limits shared by create and update.
func validate(_ body: PostBody, owner: String, rules: PostRules) throws {
    try rules.checkLength(body.title, field: "title", max: PostRules.maxTitle)
    try rules.checkLength(body.content, field: "content", max: PostRules.maxContent)
    for (field, value) in [("content1", body.content1), ("content2", body.content2), ("content3", body.content3),
                           ("content4", body.content4), ("content5", body.content5)] {
        try rules.checkLength(value, field: field, max: PostRules.maxExtraContent)
    }
    try rules.checkLength(body.productId, field: "product_id", max: PostRules.maxProductId)
    try rules.checkFiles(body.files, owner: owner)
    try rules.checkPrice(body.price)
}
