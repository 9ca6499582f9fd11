import HTTPTypes
import Hummingbird
import Logging
import SNSPlatform

/// Builds the posts & feed service: posts, comments, likes, hashtags and feeds (API conventions §2.3, §2.4, §6),
/// with read models of users, follows and purchases fed by events.
public func buildApplication(configuration: PostsConfiguration, logger: Logger) async throws -> some ApplicationProtocol
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
    let api = router.group("v1/posts").add(middleware: authentication)
    let reads = ReadPostHandlers(deps: deps)
    let comments = CommentHandlers(deps: deps)
    api.get(use: reads.all)
    api.post(use: CreatePostHandler(deps: deps).handle)
    api.get("hashtags", use: reads.byHashtag)
    api.get("likes/me", use: reads.liked(kind: .like))
    api.get("likes-2/me", use: reads.liked(kind: .like2))
    api.get("feed/following", use: reads.following)
    api.get("users/:user_id", use: reads.byUser)
    api.get(":post_id", use: reads.one)
    api.put(":post_id", use: UpdatePostHandler(deps: deps).handle)
    api.delete(":post_id", use: DeletePostHandler(deps: deps).handle)
    api.post(":post_id/like", use: LikeHandler(deps: deps, kind: .like).handle)
    api.post(":post_id/like-2", use: LikeHandler(deps: deps, kind: .like2).handle)
    api.post(":post_id/comments", use: comments.create)
    api.put(":post_id/comments/:comment_id", use: comments.update)
    api.delete(":post_id/comments/:comment_id", use: comments.delete)

    // G0 (2023, no prefix; API conventions §4, decision 0011): the same handlers in the G0 encoding, singular paths,
    // posts written as multipart with inline images (forwarded to media), the like as a toggle without a body.
    let g0 = router.group("post").add(middleware: authentication)
    let g0Reads = ReadPostHandlers(deps: deps, format: .g0)
    let g0Comments = CommentHandlers(deps: deps, format: .g0)
    let g0Writes = G0PostWriteHandlers(
        deps: deps,
        media: MediaClient(
            mediaURL: configuration.mediaURL, apiKey: configuration.platform.apiKey,
            timeout: configuration.internalTimeout),
        maxFiles: configuration.maxInlineFiles, maxFileBytes: configuration.maxInlineFileBytes)
    g0.get(use: g0Reads.all)
    g0.post(use: g0Writes.create)
    g0.get("hashtag", use: g0Reads.byHashtag)
    g0.get("like/me", use: g0Reads.liked(kind: .like))
    g0.post("like/:post_id", use: LikeHandler(deps: deps, kind: .like).toggle)
    g0.get("user/:user_id", use: g0Reads.byUser)
    g0.get(":post_id", use: g0Reads.one)
    g0.put(":post_id", use: g0Writes.update)
    g0.delete(":post_id", use: DeletePostHandler(deps: deps, format: .g0).handle)
    g0.post(":post_id/comment", use: g0Comments.create)
    g0.put(":post_id/comment/:comment_id", use: g0Comments.update)
    g0.delete(":post_id/comment/:comment_id", use: g0Comments.delete)

    let readModels = try platform.makeConsumer(
        SystemCatalog.posts.consumers[0], of: SystemCatalog.posts, handler: PostsReadModelsProjection())
    return platform.makeApplication(router: router, consumers: configuration.consumesEvents ? [readModels] : [])
}
