import Foundation
import SNSPlatform

/// Creating, editing and deleting posts — the same rules, transaction and events for G1's JSON and G0's multipart
/// (API conventions §2.3, §4). Each write commits with its event and answers once the projections the client can
/// observe have applied it (read-your-writes, decision 0013).
struct PostWrites: Sendable {
    let deps: PostsDependencies

    /// Checks a new post before anything is stored (G0 checks before it hands images to media).
    func checkNew(_ body: PostBody, owner: String) throws {
        try checkFields(body, owner: owner)
        guard let productId = body.productId.value, !productId.isEmpty else {
            throw APIError.badRequest("필수값을 채워주세요: product_id (missing required value 'product_id')")
        }
    }

    /// Field limits shared by create and update.
    func checkFields(_ body: PostBody, owner: String) throws {
        let rules = deps.rules
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
        for (field, value) in [
            ("value6", body.value6), ("value7", body.value7), ("value8", body.value8), ("value9", body.value9),
            ("value10", body.value10),
        ] {
            try rules.checkLength(value.value, field: field, max: PostRules.maxExtraContent)
        }
        try rules.checkFiles(body.files.value, owner: owner)
        try rules.checkPrice(body.price.value)
        try rules.checkPlace(latitude: body.latitude, longitude: body.longitude)
    }

    /// A new post, its hashtags and `post-created` in one statement → the committed post as §3.1 JSON.
    func create(_ body: PostBody, by caller: Caller) async throws -> PostJSONText {
        try checkNew(body, owner: caller.userId)
        let now = Date()
        let post = PostRecord(
            postId: ObjectID.generate(now: now), userId: caller.userId, productId: body.productId.value ?? "",
            title: body.title.value, content: body.content.value, content1: body.content1.value,
            content2: body.content2.value, content3: body.content3.value, content4: body.content4.value,
            content5: body.content5.value, price: body.price.value, appId: caller.productId,
            value6: body.value6.value, value7: body.value7.value, value8: body.value8.value, value9: body.value9.value,
            value10: body.value10.value, latitude: body.latitude.value, longitude: body.longitude.value,
            files: body.files.value ?? [],
            hashTags: Hashtags.extract(from: body.content.value), createdAt: now, updatedAt: now)
        // One statement writes the post and its event and returns the answer: a committed post is always answered
        // with 200 (`CreatePost`).
        let ticket = deps.outbox.readYourWrites()
        let (envelope, awaitedBy) = deps.outbox.envelope(
            PostCreated(post: post.snapshot), aggregateId: post.postId, trace: caller.trace, awaitedBy: ticket)
        let outboxRow = try deps.outbox.row(
            envelope, topic: PostCreated.eventType.topic, traceparent: caller.trace.traceparent, awaitedBy: awaitedBy,
            wakingAfterCommit: ticket)
        let stored = try await deps.store.create(post, outbox: outboxRow, logger: caller.logger)
        // What a read of the post answers (`PostQueries.answer`): G1's JSON, or G2's for a G2 app (whose posts are the
        // ones with a G2 document: `app_id` is the caller's app).
        guard let created = caller.productId == nil ? stored.doc : stored.docG2 else { throw APIError.internalError() }
        await ticket.wait(logger: caller.logger)
        caller.logger.info("post created", metadata: ["post_id": "\(post.postId)"])
        return created
    }

    /// An edit: owner only (445), 410 when the post is gone; absent keys keep their value, `null` clears one.
    func update(postId: String, _ body: PostBody, by caller: Caller) async throws -> PostJSONText {
        try checkFields(body, owner: caller.userId)
        let ticket = deps.outbox.readYourWrites()
        let updated = try await deps.postgres.transaction(logger: caller.logger) { connection -> PostJSONText? in
            guard let locked = try await deps.store.lock(postId: postId, on: connection, logger: caller.logger) else {
                throw PostsDependencies.postGone
            }
            var post = locked.record
            let seq = locked.seq
            guard post.userId == caller.userId else { throw APIError.notOwner() }
            post.apply(body)
            post.updatedAt = Date()
            try await deps.store.update(post, seq: seq, on: connection, logger: caller.logger)
            try await deps.outbox.append(
                PostUpdated(post: post.snapshot), aggregateId: post.postId,
                trace: caller.trace, awaitedBy: ticket, on: connection, logger: caller.logger)
            return try await deps.queries.answer(postId: postId, for: caller, on: connection)
        }
        await ticket.wait(logger: caller.logger)
        guard let updated else { throw PostsDependencies.postGone }
        return updated
    }

    /// A deletion: owner only (445), 410 when gone. Its comments, likes and hashtags go with it; `post-deleted`
    /// releases its files.
    func delete(postId: String, by caller: Caller) async throws {
        let ticket = deps.outbox.readYourWrites()
        try await deps.postgres.transaction(logger: caller.logger) { connection in
            guard let (post, _) = try await deps.store.lock(postId: postId, on: connection, logger: caller.logger)
            else {
                throw PostsDependencies.postGone
            }
            guard post.userId == caller.userId else { throw APIError.notOwner() }
            try await deps.store.delete(postId: postId, on: connection, logger: caller.logger)
            try await deps.outbox.append(
                PostDeleted(
                    postId: postId, userId: post.userId, productId: post.productId, files: post.files, deletedAt: Date()
                ),
                aggregateId: postId, trace: caller.trace, awaitedBy: ticket, on: connection, logger: caller.logger)
        }
        await ticket.wait(logger: caller.logger)
        caller.logger.info("post deleted", metadata: ["post_id": "\(postId)"])
    }
}
