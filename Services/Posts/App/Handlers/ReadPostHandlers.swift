import Foundation
import Hummingbird
import HummingbirdCore
import SNSPlatform

/// The read endpoints: one post and every cursor-paged list (API conventions §2.3 #12, #13, #16, #17, #20, #21,
/// plus our following feed). All answer `{data, next_cursor}` except the single post. In `format` `.g0` the same
/// handlers serve G0's `/post…` reads (API conventions §4) with G0 posts.
struct ReadPostHandlers: Sendable {
    let deps: PostsDependencies
    var format: WireFormat = .g1

    /// `GET /v1/posts/{post_id}`: any post, whichever app or generation wrote it.
    func one(_ request: Request, context: APIRequestContext) async throws -> Response {
        let postId = try context.parameters.require("post_id")
        let format = context.wireFormat(format)
        let found =
            format == .g2
            ? try await deps.queries.oneG2(postId: postId, reader: try reader(context), logger: context.logger)
            : try await deps.queries.one(postId: postId, reader: try reader(context), logger: context.logger)
        guard let post = found else { throw PostsDependencies.postGone }
        return try .post(post, format)
    }

    /// `GET /v1/posts?next&limit&product_id` (G2: `category`, the app's posts).
    func all(_ request: Request, context: APIRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let page = try Page(query: query)
        if let app = context.productId {
            return try await replyG2(.all(app: app, category: category(query)), page: page, context: context)
        }
        return try await reply(.all(productId: productId(query)), page: page, context: context)
    }

    /// `GET /v1/posts/users/{user_id}?next&limit&product_id`.
    func byUser(_ request: Request, context: APIRequestContext) async throws -> Response {
        let userId = try context.parameters.require("user_id")
        let query = request.uri.queryParameters
        let page = try Page(query: query)
        if let app = context.productId {
            return try await replyG2(
                .byUser(app: app, userId: userId, category: category(query)), page: page, context: context)
        }
        return try await reply(.byUser(userId: userId, productId: productId(query)), page: page, context: context)
    }

    /// `GET /v1/posts/hashtags?hashTag&next&limit&product_id` — `hashTag` without `#` (a leading `#` is tolerated).
    func byHashtag(_ request: Request, context: APIRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let page = try Page(query: query)
        let tag = Hashtags.key(query["hashTag"].map(String.init) ?? "")
        guard !tag.isEmpty else { throw APIError.badRequest("hashTag 값을 입력해주세요. (hashTag is required)") }
        if let app = context.productId {
            return try await replyG2(
                .byHashtag(app: app, tag: tag, category: category(query)), page: page, context: context)
        }
        return try await reply(.byHashtag(tag: tag, productId: productId(query)), page: page, context: context)
    }

    /// `GET /v1/posts/likes/me` and `GET /v1/posts/likes-2/me`.
    func liked(kind: LikeKind) -> @Sendable (Request, APIRequestContext) async throws -> Response {
        { request, context in
            let user = try context.requireUser()
            let query = request.uri.queryParameters
            let page = try Page(query: query)
            if let app = context.productId {
                return try await replyG2(
                    .liked(app: app, userId: user.userId, kind: kind, category: category(query)), page: page,
                    context: context)
            }
            return try await reply(
                .liked(userId: user.userId, kind: kind, productId: productId(query)), page: page, context: context)
        }
    }

    /// `GET /v1/posts/feed/following?next&limit&product_id` (ours), and G2's `GET /v1/posts/feed`: posts of the
    /// people I follow.
    func following(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let query = request.uri.queryParameters
        let page = try Page(query: query)
        if let app = context.productId {
            return try await replyG2(
                .following(app: app, userId: user.userId, category: category(query)), page: page, context: context)
        }
        return try await reply(
            .following(userId: user.userId, productId: productId(query)), page: page, context: context)
    }

    /// G2 `GET /v1/posts/feed?next&limit&category` (G2 only: 421 without `ProductId`).
    func g2Feed(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try context.requireProductId()
        return try await following(request, context: context)
    }

    /// G2 `GET /v1/posts/search?title&category&next&limit`: the app's posts whose title contains `title`
    /// (case-insensitively), newest first.
    func searchByTitle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try context.requireProductId()
        let query = request.uri.queryParameters
        let page = try Page(query: query)
        let title = (query["title"].map(String.init) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw APIError.badRequest("title 값을 입력해주세요. (title is required)") }
        try deps.rules.checkLength(title, field: "title", max: 100)
        return try await replyG2(
            .titleSearch(app: app, text: title, category: category(query)), page: page, context: context)
    }

    /// The caller, whose account the page's statement checks (these routes' middleware checks only the token).
    private func reader(_ context: APIRequestContext) throws -> String { try context.requireUser().userId }

    /// `category` filter of G2 lists; empty means none.
    private func category(_ query: FlatDictionary<Substring, Substring>) -> String? {
        guard let value = query["category"], !value.isEmpty else { return nil }
        return String(value)
    }

    /// `product_id` filter; empty means no filter.
    private func productId(_ query: FlatDictionary<Substring, Substring>) -> String? {
        guard let value = query["product_id"], !value.isEmpty else { return nil }
        return String(value)
    }

    /// A G1 page is the posts' ready JSON joined by PostgreSQL, sent as it is; G0 re-spells each post.
    private func reply(_ list: PostQueries.List, page: Page, context: APIRequestContext) async throws -> Response {
        let reader = try reader(context)
        guard format == .g1 else {
            let result = try await deps.queries.list(list, page: page, reader: reader, logger: context.logger)
            return try .postList(result.posts, nextCursor: result.nextCursor, format)
        }
        let joined = try await deps.queries.joinedList(list, page: page, reader: reader, logger: context.logger)
        return .postList(joined)
    }

    private func replyG2(_ list: PostQueries.G2List, page: Page, context: APIRequestContext) async throws -> Response {
        .postList(
            try await deps.queries.joinedList(list, page: page, reader: try reader(context), logger: context.logger))
    }
}
