import Foundation
import SNSPlatform

/// The social graph service's configuration: the shared platform settings plus
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `SNS_AUTH_URL` | base URL of the auth service (profile writes, `PUT /internal/v1/profile`) | `http://127.0.0.1:8101` |
/// | `SNS_MEDIA_URL` | base URL of the media service (profile images, `POST /internal/v1/profile-images`) | `http://127.0.0.1:8103` |
/// | `SNS_INTERNAL_TIMEOUT_MS` | deadline of each internal call | 10000 |
package struct SocialConfiguration: Sendable {
    package var platform: PlatformConfiguration
    package var authURL: String
    package var mediaURL: String
    package var internalTimeout: Duration
    /// The database schema (tests use private ones; the consumer group follows it).
    package var schema: String
    /// Whether the projection consumer runs (always in deployments). In-process test instances on the shared
    /// schema leave it to the stack's social process, so the consumer group is not rebalanced by every test.
    package var consumesEvents: Bool = true
    /// Largest profile image accepted before it is forwarded to media (which applies its own limit too).
    package var maxProfileImageBytes: Int = 5 * 1024 * 1024

    package static let serviceName = "social"
    package static let defaultPort = 8104

    package init(
        platform: PlatformConfiguration, authURL: String, mediaURL: String,
        internalTimeout: Duration = .seconds(10), schema: String = "social"
    ) {
        self.platform = platform
        self.authURL = authURL
        self.mediaURL = mediaURL
        self.internalTimeout = internalTimeout
        self.schema = schema
    }

    package init(environment env: Environment = Environment()) throws {
        self.platform = try PlatformConfiguration(
            serviceName: Self.serviceName, defaultPort: Self.defaultPort, environment: env)
        self.authURL = try env.httpURL("SNS_AUTH_URL", default: "http://127.0.0.1:8101")
        self.mediaURL = try env.httpURL("SNS_MEDIA_URL", default: "http://127.0.0.1:8103")
        self.internalTimeout = .milliseconds(
            try env.int("SNS_INTERNAL_TIMEOUT_MS", default: 10_000, range: 100...120_000))
        self.schema = "social"
    }

}
