import SNSPlatform

/// The posts & feed service's configuration: the shared platform settings plus
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `SNS_MEDIA_SIGNING_KEY` / `_FILE` | the media service's path-signing key: posts accept only files it issued to the author | required |
public struct PostsConfiguration: Sendable {
    public var platform: PlatformConfiguration
    public var mediaSigningKey: String
    /// Whether the read-model consumer runs (always in deployments). In-process test instances leave it to the
    /// stack's posts process, so the consumer group is not rebalanced by every test.
    public var consumesEvents: Bool = true

    public static let serviceName = "posts"
    public static let defaultPort = 8102

    public init(platform: PlatformConfiguration, mediaSigningKey: String) {
        self.platform = platform
        self.mediaSigningKey = mediaSigningKey
    }

    public init(environment env: Environment = Environment()) throws {
        self.platform = try PlatformConfiguration(serviceName: Self.serviceName, defaultPort: Self.defaultPort, environment: env)
        self.mediaSigningKey = try env.secret("SNS_MEDIA_SIGNING_KEY")
        _ = try MediaPathSigner(secret: mediaSigningKey)
    }
}
