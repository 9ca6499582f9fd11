import HTTPTypes
import Hummingbird
import Logging
import SNSPlatform

/// Builds the posts & feed service: posts, comments, likes, hashtags and feeds (API conventions §2.3, §2.4, §6),
/// with read models of users, follows and purchases fed by events.
package func buildApplication(configuration: PostsConfiguration, logger: Logger) async throws
    -> some ApplicationProtocol
{
    let platform = try await ServicePlatform(
        configuration: configuration.platform, schema: configuration.schema,
        migrations: PostsMigrations.all(schema: try SQLIdentifier(configuration.schema)), genericPlans: true,
        requestPoolsPerLoop: true, logger: logger)
    let store = PostStore(pools: platform.requestPools)
    let deps = PostsDependencies(
        store: store, queries: PostQueries(pools: platform.requestPools),
        rules: PostRules(signer: try MediaPathSigner(secret: configuration.mediaSigningKey)),
        outbox: platform.outbox, pools: platform.requestPools)

    let router = platform.makeRouter()
    // One authentication for the G1 and the G0 routes: the token, and the account still active. The routes of
    // `ownCheck` (page reads, likes, new posts and comments) check the account in their own statements instead
    // (decision 0022: the page's `ReaderCheckedPage`, the write's `ensureUser`), one round trip fewer; their
    // middleware checks the token alone.
    let authentication = AuthenticationMiddleware(verifier: platform.verifier) { user in
        try await store.isActive(userId: user.userId, logger: logger)
    }
    let tokenOnly = AuthenticationMiddleware(verifier: platform.verifier)
    // The use cases (Domain/), then the routes that decode, call them and encode in their API generation.
    let writes = PostWrites(deps: deps)
    let (likes, likes2) = (Likes(deps: deps, kind: .like), Likes(deps: deps, kind: .like2))
    let comments = Comments(deps: deps)

    let api = router.group("v1/posts").add(middleware: authentication)
    let ownCheck = router.group("v1/posts").add(middleware: tokenOnly)
    let reads = ReadPostHandlers(deps: deps)
    let postWrites = PostWriteHandlers(writes: writes)
    let commentHandlers = CommentHandlers(comments: comments)
    ownCheck.get(use: reads.all)
    ownCheck.post(use: postWrites.create)
    ownCheck.get("hashtags", use: reads.byHashtag)
    ownCheck.get("likes/me", use: reads.liked(kind: .like))
    ownCheck.get("likes-2/me", use: reads.liked(kind: .like2))
    ownCheck.get("feed/following", use: reads.following)
    // G2 only (decision 0021): 421 without ProductId.
    let g2 = G2PostHandlers(deps: deps)
    ownCheck.get("feed", use: reads.g2Feed)
    ownCheck.get("search", use: reads.searchByTitle)
    api.get("geolocation", use: g2.nearby)
    api.get(":post_id/comments", use: g2.comments)
    ownCheck.get("users/:user_id", use: reads.byUser)
    ownCheck.get(":post_id", use: reads.one)
    api.put(":post_id", use: postWrites.update)
    api.delete(":post_id", use: postWrites.delete)
    ownCheck.post(":post_id/like", use: LikeHandler(likes: likes).handle)
    ownCheck.post(":post_id/like-2", use: LikeHandler(likes: likes2).handle)
    ownCheck.post(":post_id/comments", use: commentHandlers.create)
    api.put(":post_id/comments/:comment_id", use: commentHandlers.update)
    api.delete(":post_id/comments/:comment_id", use: commentHandlers.delete)

    // G0 (2023, no prefix; API conventions §4, decision 0011): the same handlers in the G0 encoding, singular paths,
    // posts written as multipart with inline images (forwarded to media), the like as a toggle without a body.
    let g0 = router.group("post").add(middleware: authentication)
    let g0OwnCheck = router.group("post").add(middleware: tokenOnly)
    let g0Reads = ReadPostHandlers(deps: deps, format: .g0)
    let g0Comments = CommentHandlers(comments: comments, format: .g0)
    let g0Writes = G0PostWriteHandlers(
        writes: writes,
        media: MediaClient(
            mediaURL: configuration.mediaURL, apiKey: configuration.platform.apiKey,
            timeout: configuration.internalTimeout),
        maxFiles: configuration.maxInlineFiles, maxFileBytes: configuration.maxInlineFileBytes)
    g0OwnCheck.get(use: g0Reads.all)
    g0.post(use: g0Writes.create)
    g0OwnCheck.get("hashtag", use: g0Reads.byHashtag)
    g0OwnCheck.get("like/me", use: g0Reads.liked(kind: .like))
    g0OwnCheck.post("like/:post_id", use: LikeHandler(likes: likes).toggle)
    g0OwnCheck.get("user/:user_id", use: g0Reads.byUser)
    g0OwnCheck.get(":post_id", use: g0Reads.one)
    g0.put(":post_id", use: g0Writes.update)
    g0.delete(":post_id", use: PostWriteHandlers(writes: writes, format: .g0).delete)
    g0OwnCheck.post(":post_id/comment", use: g0Comments.create)
    g0.put(":post_id/comment/:comment_id", use: g0Comments.update)
    g0.delete(":post_id/comment/:comment_id", use: g0Comments.delete)

    let readModels = try platform.makeConsumer(
        SystemCatalog.posts.consumers[0], of: SystemCatalog.posts, handler: PostsReadModelsProjection())
    return platform.makeApplication(router: router, consumers: configuration.consumesEvents ? [readModels] : [])
}
