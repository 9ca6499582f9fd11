import SNSPlatform

/// The posts & feed service's configuration: the shared platform settings plus
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `SNS_MEDIA_SIGNING_KEY` / `_FILE` | the media service's path-signing key: posts accept only files it issued to the author | required |
/// | `SNS_MEDIA_URL` | base URL of the media service: G0 posts carry their images inline, forwarded to `POST /internal/v1/post-images` (decision 0011) | `http://127.0.0.1:8103` |
/// | `SNS_INTERNAL_TIMEOUT_MS` | deadline of each such call | 10000 |
package struct PostsConfiguration: Sendable {
    package var platform: PlatformConfiguration
    package var mediaSigningKey: String
    package var mediaURL: String = "http://127.0.0.1:8103"
    package var internalTimeout: Duration = .seconds(10)
    /// Whether the read-model consumer runs (always in deployments). In-process test instances leave it to the
    /// stack's posts process, so the consumer group is not rebalanced by every test.
    package var consumesEvents: Bool = true
    /// The database schema: `posts` in deployments; tests may run the service on a private one (its consumer group
    /// then gets the schema as a suffix).
    package var schema: String = SystemCatalog.posts.schema
    /// Inline images of one G0 post write (API conventions §10.7: at most 5 of at most 5 MB; media checks them again).
    package var maxInlineFiles: Int = 5
    package var maxInlineFileBytes: Int = 5 * 1024 * 1024

    package static let serviceName = "posts"
    package static let defaultPort = 8102

    package init(platform: PlatformConfiguration, mediaSigningKey: String) {
        self.platform = platform
        self.mediaSigningKey = mediaSigningKey
    }

    package init(environment env: Environment = Environment()) throws {
        self.platform = try PlatformConfiguration(
            serviceName: Self.serviceName, defaultPort: Self.defaultPort, environment: env)
        self.mediaSigningKey = try env.secret("SNS_MEDIA_SIGNING_KEY")
        _ = try MediaPathSigner(secret: mediaSigningKey)
        self.mediaURL = try env.httpURL("SNS_MEDIA_URL", default: "http://127.0.0.1:8103")
        self.internalTimeout = .milliseconds(
            try env.int("SNS_INTERNAL_TIMEOUT_MS", default: 10_000, range: 100...120_000))
    }
}
