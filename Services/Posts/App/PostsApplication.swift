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
        migrations: PostsMigrations.all(schema: try SQLIdentifier(configuration.schema)), logger: logger)
    let store = PostStore(client: platform.postgres)
    let deps = PostsDependencies(
        store: store, queries: PostQueries(client: platform.postgres),
        rules: PostRules(signer: try MediaPathSigner(secret: configuration.mediaSigningKey)),
        outbox: platform.outbox, postgres: platform.postgres)

    let router = platform.makeRouter()
    // One authentication for the G1 and the G0 routes: the token, and the account still active.
    let authentication = AuthenticationMiddleware(verifier: platform.verifier) { user in
        try await store.isActive(userId: user.userId, logger: logger)
    }
    // The use cases (Domain/), then the routes that decode, call them and encode in their API generation.
    let writes = PostWrites(deps: deps)
    let (likes, likes2) = (Likes(deps: deps, kind: .like), Likes(deps: deps, kind: .like2))
    let comments = Comments(deps: deps)

    let api = router.group("v1/posts").add(middleware: authentication)
    let reads = ReadPostHandlers(deps: deps)
    let postWrites = PostWriteHandlers(writes: writes)
    let commentHandlers = CommentHandlers(comments: comments)
    api.get(use: reads.all)
    api.post(use: postWrites.create)
    api.get("hashtags", use: reads.byHashtag)
    api.get("likes/me", use: reads.liked(kind: .like))
    api.get("likes-2/me", use: reads.liked(kind: .like2))
    api.get("feed/following", use: reads.following)
    // G2 only (decision 0021): 421 without ProductId.
    let g2 = G2PostHandlers(deps: deps)
    api.get("feed", use: reads.g2Feed)
    api.get("search", use: reads.searchByTitle)
    api.get("geolocation", use: g2.nearby)
    api.get(":post_id/comments", use: g2.comments)
    api.get("users/:user_id", use: reads.byUser)
    api.get(":post_id", use: reads.one)
    api.put(":post_id", use: postWrites.update)
    api.delete(":post_id", use: postWrites.delete)
    api.post(":post_id/like", use: LikeHandler(likes: likes).handle)
    api.post(":post_id/like-2", use: LikeHandler(likes: likes2).handle)
    api.post(":post_id/comments", use: commentHandlers.create)
    api.put(":post_id/comments/:comment_id", use: commentHandlers.update)
    api.delete(":post_id/comments/:comment_id", use: commentHandlers.delete)

    // G0 (2023, no prefix; API conventions §4, decision 0011): the same handlers in the G0 encoding, singular paths,
    // posts written as multipart with inline images (forwarded to media), the like as a toggle without a body.
    let g0 = router.group("post").add(middleware: authentication)
    let g0Reads = ReadPostHandlers(deps: deps, format: .g0)
    let g0Comments = CommentHandlers(comments: comments, format: .g0)
    let g0Writes = G0PostWriteHandlers(
        writes: writes,
        media: MediaClient(
            mediaURL: configuration.mediaURL, apiKey: configuration.platform.apiKey,
            timeout: configuration.internalTimeout),
        maxFiles: configuration.maxInlineFiles, maxFileBytes: configuration.maxInlineFileBytes)
    g0.get(use: g0Reads.all)
    g0.post(use: g0Writes.create)
    g0.get("hashtag", use: g0Reads.byHashtag)
    g0.get("like/me", use: g0Reads.liked(kind: .like))
    g0.post("like/:post_id", use: LikeHandler(likes: likes).toggle)
    g0.get("user/:user_id", use: g0Reads.byUser)
    g0.get(":post_id", use: g0Reads.one)
    g0.put(":post_id", use: g0Writes.update)
    g0.delete(":post_id", use: PostWriteHandlers(writes: writes, format: .g0).delete)
    g0.post(":post_id/comment", use: g0Comments.create)
    g0.put(":post_id/comment/:comment_id", use: g0Comments.update)
    g0.delete(":post_id/comment/:comment_id", use: g0Comments.delete)

    let readModels = try platform.makeConsumer(
        SystemCatalog.posts.consumers[0], of: SystemCatalog.posts, handler: PostsReadModelsProjection())
    return platform.makeApplication(router: router, consumers: configuration.consumesEvents ? [readModels] : [])
}
