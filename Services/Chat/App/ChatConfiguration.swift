import Foundation
import SNSPlatform

/// The chat service's configuration: the shared platform settings plus
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `SNS_MEDIA_SIGNING_KEY` / `_FILE` | the media service's path-signing key: a message may carry only files media stored for its sender | required |
/// | `SNS_CHAT_PING_INTERVAL_MS` / `SNS_CHAT_PING_TIMEOUT_MS` | Engine.IO heartbeat: a socket that leaves a ping unanswered this long is closed | 25000 / 20000 |
/// | `SNS_MEDIA_URL` | base URL of the media service (room uploads, `POST /internal/v1/chat-uploads`) | `http://127.0.0.1:8103` |
/// | `SNS_INTERNAL_TIMEOUT_MS` | deadline of each internal call | 10000 |
/// | `SNS_CHAT_HISTORY_LIMIT` | most messages one `GET /v1/chats/{room_id}` returns (the oldest after the cursor first) | 1000 |
package struct ChatConfiguration: Sendable {
    package var platform: PlatformConfiguration
    package var mediaSigningKey: String
    package var historyLimit: Int = 1_000
    package var mediaURL: String = "http://127.0.0.1:8103"
    package var internalTimeout: Duration = .seconds(10)
    /// Engine.IO's heartbeat and payload bound (`SNS_CHAT_PING_INTERVAL_MS`, `SNS_CHAT_PING_TIMEOUT_MS`).
    var realtime = RealtimeHub.Settings()
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
        self.mediaURL = try env.httpURL("SNS_MEDIA_URL", default: "http://127.0.0.1:8103")
        self.internalTimeout = .milliseconds(
            try env.int("SNS_INTERNAL_TIMEOUT_MS", default: 10_000, range: 100...120_000))
        self.historyLimit = try env.int("SNS_CHAT_HISTORY_LIMIT", default: 1_000, range: 10...10_000)
        realtime.pingInterval = .milliseconds(
            try env.int("SNS_CHAT_PING_INTERVAL_MS", default: 25_000, range: 100...300_000))
        realtime.pingTimeout = .milliseconds(
            try env.int("SNS_CHAT_PING_TIMEOUT_MS", default: 20_000, range: 100...300_000))
    }
}
