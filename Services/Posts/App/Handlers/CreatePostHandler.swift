import Foundation
import Hummingbird
import SNSPlatform

/// `POST /v1/posts` → §3.1 Post. The post, its hashtags and `post-created` commit in one transaction.
struct CreatePostHandler: Sendable {
    let deps: PostsDependencies

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: PostBody.self, context: context)
        return .post(try await create(body, userId: user.userId, context: context))
    }

    /// Checks a create body before anything is stored (G0 checks before it hands images to media).
    static func check(_ body: PostBody, owner: String, rules: PostRules) throws {
        try validate(body, owner: owner, rules: rules)
        guard let productId = body.productId.value, !productId.isEmpty else {
            throw APIError.badRequest("필수값을 채워주세요: product_id (missing required value 'product_id')")
        }
    }

    /// The write itself, shared by the G1 (JSON) and G0 (multipart) encodings: the committed post as §3.1 JSON.
    func create(_ body: PostBody, userId: String, context: APIRequestContext) async throws -> PostJSONText {
        try Self.check(body, owner: userId, rules: deps.rules)
        let productId = body.productId.value ?? ""
        let now = Date()
        let post = PostRecord(
            postId: ObjectID.generate(now: now), userId: userId, productId: productId, title: body.title.value,
            content: body.content.value, content1: body.content1.value, content2: body.content2.value,
            content3: body.content3.value, content4: body.content4.value, content5: body.content5.value,
            price: body.price.value, files: body.files.value ?? [],
            hashTags: Hashtags.extract(from: body.content.value),
            createdAt: now, updatedAt: now)
        // The answer is read inside the transaction: a committed post is always answered with 200.
        let ticket = deps.outbox.readYourWrites()
        let created = try await deps.postgres.transaction(logger: context.logger) { connection -> PostJSONText? in
            let withdrawn = try await deps.store.ensureUser(userId, on: connection, logger: context.logger)
            guard !withdrawn else { throw APIError.unauthorized("탈퇴한 계정입니다. (account withdrawn)") }
            try await deps.store.insert(post, authorWithdrawn: false, on: connection, logger: context.logger)
            try await deps.outbox.append(
                PostCreated(post: post.snapshot), aggregateId: post.postId,
                trace: context.trace, awaitedBy: ticket, on: connection, logger: context.logger)
            return try await deps.queries.one(postId: post.postId, on: connection, logger: context.logger)
        }
        await ticket.wait(logger: context.logger)
        guard let created else { throw PostsDependencies.postGone }
        context.logger.info("post created", metadata: ["post_id": "\(post.postId)"])
        return created
    }
}

/// Field limits shared by create and update.
func validate(_ body: PostBody, owner: String, rules: PostRules) throws {
    try rules.checkLength(body.title.value, field: "title", max: PostRules.maxTitle)
    try rules.checkLength(body.content.value, field: "content", max: PostRules.maxContent)
    for (field, value) in [
        ("content1", body.content1), ("content2", body.content2), ("content3", body.content3),
        ("content4", body.content4), ("content5", body.content5),
    ] {
        try rules.checkLength(value.value, field: field, max: PostRules.maxExtraContent)
    }
    if case .null = body.productId {
        throw APIError.badRequest("product_id 값이 올바르지 않습니다. (product_id cannot be null)")
    }
    try rules.checkLength(body.productId.value, field: "product_id", max: PostRules.maxProductId)
    try rules.checkFiles(body.files.value, owner: owner)
    try rules.checkPrice(body.price.value)
}
