import Foundation
import Hummingbird
import SNSPlatform

/// The read endpoints: one post and every cursor-paged list (API conventions §2.3 #12, #13, #16, #17, #20, #21,
/// plus our following feed). All answer `{data, next_cursor}` except the single post. In `format` `.g0` the same
/// handlers serve G0's `/post…` reads (API conventions §4) with G0 posts.
struct ReadPostHandlers: Sendable {
    let deps: PostsDependencies
    var format: WireFormat = .g1

    /// `GET /v1/posts/{post_id}`.
    func one(_ request: Request, context: APIRequestContext) async throws -> Response {
        let postId = try context.parameters.require("post_id")
        guard let post = try await deps.queries.one(postId: postId, logger: context.logger) else {
            throw PostsDependencies.postGone
        }
        return try .post(post, format)
    }

    /// `GET /v1/posts?next&limit&product_id`.
    func all(_ request: Request, context: APIRequestContext) async throws -> Response {
        let page = try Page(request: request)
        return try reply(
            try await deps.queries.list(.all(productId: productId(request)), page: page, logger: context.logger))
    }

    /// `GET /v1/posts/users/{user_id}?next&limit&product_id`.
    func byUser(_ request: Request, context: APIRequestContext) async throws -> Response {
        let userId = try context.parameters.require("user_id")
        let page = try Page(request: request)
        return try reply(
            try await deps.queries.list(
                .byUser(userId: userId, productId: productId(request)), page: page, logger: context.logger))
    }

    /// `GET /v1/posts/hashtags?hashTag&next&limit&product_id` — `hashTag` without `#` (a leading `#` is tolerated).
    func byHashtag(_ request: Request, context: APIRequestContext) async throws -> Response {
        let page = try Page(request: request)
        let tag = Hashtags.key(request.uri.queryParameters["hashTag"].map(String.init) ?? "")
        guard !tag.isEmpty else { throw APIError.badRequest("hashTag 값을 입력해주세요. (hashTag is required)") }
        return try reply(
            try await deps.queries.list(
                .byHashtag(tag: tag, productId: productId(request)), page: page, logger: context.logger))
    }

    /// `GET /v1/posts/likes/me` and `GET /v1/posts/likes-2/me`.
    func liked(kind: LikeKind) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { request, context in
            let user = try context.requireUser()
            let page = try Page(request: request)
            return try reply(
                try await deps.queries.list(
                    .liked(userId: user.userId, kind: kind, productId: productId(request)), page: page,
                    logger: context.logger))
        }
    }

    /// `GET /v1/posts/feed/following?next&limit&product_id` (ours): posts of the people I follow.
    func following(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try Page(request: request)
        return try reply(
            try await deps.queries.list(
                .following(userId: user.userId, productId: productId(request)), page: page, logger: context.logger))
    }

    /// `product_id` filter; empty means no filter.
    private func productId(_ request: Request) -> String? {
        guard let value = request.uri.queryParameters["product_id"], !value.isEmpty else { return nil }
        return String(value)
    }

    private func reply(_ result: PostQueries.Result) throws -> Response {
        try .postList(result.posts, nextCursor: result.nextCursor, format)
    }
}
