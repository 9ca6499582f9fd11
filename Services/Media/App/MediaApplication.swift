import HTTPTypes
import Hummingbird
import Logging
import SNSPlatform

/// Builds the media service: streamed image uploads (post images, and profile images for the social service's
/// profile edit), authenticated downloads, and garbage collection of files no post or profile references any
/// more (API conventions §1.3, §8, §10.7; decision 0005).
package func buildApplication(configuration: MediaConfiguration, logger: Logger) async throws
    -> some ApplicationProtocol
{
    let signer = try MediaPathSigner(secret: configuration.signingKey)
    let root = MediaRoot(path: configuration.root)
    do {
        try await root.prepare()
    } catch {
        throw ConfigurationError(
            variable: "SNS_MEDIA_ROOT", reason: "names a directory that cannot be created or written: \(error)")
    }
    let schema = try SQLIdentifier(configuration.schema)
    let platform = try await ServicePlatform(
        configuration: configuration.platform, schema: schema.name, migrations: MediaMigrations.all(schema: schema),
        logger: logger)
    let catalog = MediaCatalog(schema: schema, client: platform.postgres)
    let store = MediaStore(
        root: root, signer: signer, catalog: catalog, postgres: platform.postgres, outbox: platform.outbox)
    let deps = MediaDependencies(
        configuration: configuration, receiver: MultipartReceiver(root: root, limits: configuration.uploadLimits),
        rawReceiver: RawFileReceiver(
            root: root, maxFileBytes: configuration.maxFileBytes, maxVideoBytes: configuration.maxVideoBytes),
        store: store,
        catalog: catalog, root: root)

    let router = platform.makeRouter()
    // A withdrawn user's still-valid token is refused as soon as this service has the `user-withdrawn` event.
    let authenticated = router.group().add(
        middleware: AuthenticationMiddleware(verifier: platform.verifier) { user in
            try await !catalog.isWithdrawn(userId: user.userId, logger: logger)
        })
    authenticated.post("/v1/posts/files", use: UploadHandler(deps: deps).handle)
    authenticated.get("/v1/uploads/**", use: DownloadHandler(deps: deps, routePrefix: "/v1/").handle)
    // G0 (2023) clients fetch `{base}/{path}` without the prefix (API conventions §1.3, decision 0011).
    authenticated.get("/uploads/**", use: DownloadHandler(deps: deps, routePrefix: "/").handle)
    // Internal: called by social (profile edit) and posts (G0 posts with inline images); the gateway answers 444
    // for /internal/.
    authenticated.post("/internal/v1/profile-images", use: InternalImageHandler(deps: deps, kind: .profiles).handle)
    authenticated.post("/internal/v1/post-images", use: InternalImageHandler(deps: deps, kind: .posts).handle)
    // A chat room's upload, passed on by chat as it streams in once chat checked the room (decision 0046). The
    // single-file route before it stays for chat replicas of the previous version during a rolling upgrade.
    authenticated.post("/internal/v1/chat-uploads", use: UploadHandler(deps: deps, kind: .chats).handle)
    authenticated.post("/internal/v1/chat-files", use: InternalImageHandler(deps: deps, kind: .chats).handle)

    // Its events gather on the broker for a while (decision 0033): no client waits for them but a withdrawal's writer.
    let references = try platform.makeConsumer(
        SystemCatalog.media.consumers[0], of: SystemCatalog.media, handler: MediaReferencesProjection(catalog: catalog),
        properties: configuration.referencesConsumerProperties)
    let collector = MediaGarbageCollector(
        catalog: catalog, root: root, postgres: platform.postgres, grace: configuration.gcGrace,
        batchSize: configuration.gcBatchSize, maxBatches: configuration.gcMaxBatchesPerPass, logger: platform.logger)
    let collection = MediaGarbageCollectionService(
        collector: collector, interval: configuration.gcInterval, startGate: platform.startGate, logger: platform.logger
    )

    return platform.makeApplication(
        router: router, consumers: configuration.consumesEvents ? [references] : [], extraServices: [collection])
}
