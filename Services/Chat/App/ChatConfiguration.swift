import Foundation
import SNSPlatform

/// The chat service's configuration: the shared platform settings plus
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `SNS_MEDIA_SIGNING_KEY` / `_FILE` | the media service's path-signing key: a message may carry only files media stored for its sender | required |
/// | `SNS_CHAT_HISTORY_LIMIT` | most messages one `GET /v1/chats/{room_id}` returns (the oldest after the cursor first) | 1000 |
package struct ChatConfiguration: Sendable {
    package var platform: PlatformConfiguration
    package var mediaSigningKey: String
    package var historyLimit: Int = 1_000
    /// The database schema (tests use private ones; the consumer group follows it).
    package var schema: String = "chat"
    /// Whether the users projection runs (always in deployments; in-process tests on the shared schema leave it
    /// to the stack's chat process).
    package var consumesEvents: Bool = true

    package static let serviceName = "chat"
    package static let defaultPort = 8106

    package init(platform: PlatformConfiguration, mediaSigningKey: String, schema: String = "chat") {
        self.platform = platform
        self.mediaSigningKey = mediaSigningKey
        self.schema = schema
    }

    package init(environment env: Environment = Environment()) throws {
        self.platform = try PlatformConfiguration(
            serviceName: Self.serviceName, defaultPort: Self.defaultPort, environment: env)
        self.mediaSigningKey = try env.secret("SNS_MEDIA_SIGNING_KEY")
        _ = try MediaPathSigner(secret: mediaSigningKey)
        self.historyLimit = try env.int("SNS_CHAT_HISTORY_LIMIT", default: 1_000, range: 10...10_000)
    }
}
