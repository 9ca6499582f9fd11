import Foundation
import SNSPlatform

/// The media service's configuration: the shared platform settings plus
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `SNS_MEDIA_ROOT` | directory of stored files (created at start if missing) | required |
/// | `SNS_MEDIA_SIGNING_KEY` / `_FILE` | secret (≥ 32 characters) that signs file names; the posts service holds the same | required |
/// | `SNS_MEDIA_MAX_FILE_BYTES` | largest accepted photo, bytes | 5242880 (5 MiB) |
/// | `SNS_MEDIA_MAX_VIDEO_BYTES` | largest accepted video or voice memo, bytes (decision 0046) | 10485760 (10 MiB) |
/// | `SNS_MEDIA_MAX_FILES` | files per upload request | 5 |
/// | `SNS_MEDIA_GC_GRACE` | seconds an unreferenced file is kept before it is collected | 86400 |
/// | `SNS_MEDIA_GC_INTERVAL` | seconds between garbage-collection passes | 600 |
/// | `SNS_MEDIA_EVENT_GATHER_MS` | how long the broker may hold the references consumer's fetch while events gather (decision 0033; 0: answer as soon as there is one) | 40 |
package struct MediaConfiguration: Sendable {
    package var platform: PlatformConfiguration
    package var root: String
    package var signingKey: String
    package var maxFileBytes: Int
    package var maxVideoBytes: Int
    package var maxFiles: Int
    package var gcGrace: Duration
    package var gcInterval: Duration
    /// Files collected per transaction; a pass runs at most `gcMaxBatchesPerPass` of them.
    package var gcBatchSize: Int
    package var gcMaxBatchesPerPass: Int
    /// How long the references consumer lets events gather on the broker before a fetch is answered (decision 0033):
    /// nothing a client reads waits for those references but a withdrawal's, so they are applied in batches.
    package var eventGather: Duration = .milliseconds(40)
    /// The PostgreSQL schema (always `media` in deployments; tests use a private one each).
    package var schema: String
    /// Whether the references consumer runs (always in deployments). Tests on a private schema feed the
    /// handler directly instead of replaying every topic from the beginning once per test.
    package var consumesEvents: Bool = true

    package static let serviceName = "media"
    package static let defaultPort = 8103

    package init(
        platform: PlatformConfiguration, root: String, signingKey: String, maxFileBytes: Int = 5 * 1024 * 1024,
        maxVideoBytes: Int = 10 * 1024 * 1024, maxFiles: Int = 5, gcGrace: Duration = .seconds(86_400),
        gcInterval: Duration = .seconds(600),
        gcBatchSize: Int = 200, gcMaxBatchesPerPass: Int = 25, schema: String = "media"
    ) {
        self.platform = platform
        self.root = root
        self.signingKey = signingKey
        self.maxFileBytes = maxFileBytes
        self.maxVideoBytes = maxVideoBytes
        self.maxFiles = maxFiles
        self.gcGrace = gcGrace
        self.gcInterval = gcInterval
        self.gcBatchSize = gcBatchSize
        self.gcMaxBatchesPerPass = gcMaxBatchesPerPass
        self.schema = schema
    }

    package init(environment env: Environment = Environment()) throws {
        self.platform = try PlatformConfiguration(
            serviceName: Self.serviceName, defaultPort: Self.defaultPort, environment: env)
        let root = try env.string("SNS_MEDIA_ROOT")
        self.root = root.hasPrefix("/") ? root : FileManager.default.currentDirectoryPath + "/" + root
        self.signingKey = try env.secret("SNS_MEDIA_SIGNING_KEY")
        guard signingKey.utf8.count >= 32 else {
            throw ConfigurationError(variable: "SNS_MEDIA_SIGNING_KEY", reason: "must be at least 32 characters")
        }
        self.maxFileBytes = try env.int("SNS_MEDIA_MAX_FILE_BYTES", default: 5 * 1024 * 1024, range: 1...(1 << 30))
        self.maxVideoBytes = try env.int(
            "SNS_MEDIA_MAX_VIDEO_BYTES", default: 10 * 1024 * 1024, range: 1...(1 << 30))
        self.maxFiles = try env.int("SNS_MEDIA_MAX_FILES", default: 5, range: 1...100)
        self.gcGrace = .seconds(try env.int("SNS_MEDIA_GC_GRACE", default: 86_400, range: 0...31_536_000))
        self.gcInterval = .seconds(try env.int("SNS_MEDIA_GC_INTERVAL", default: 600, range: 1...86_400))
        self.gcBatchSize = 200
        self.gcMaxBatchesPerPass = 25
        self.eventGather = .milliseconds(try env.int("SNS_MEDIA_EVENT_GATHER_MS", default: 40, range: 0...1000))
        self.schema = "media"
    }

    /// librdkafka settings of the references consumer for `eventGather` (applied over `SNS_KAFKA_PROPERTIES`): the
    /// broker answers a fetch once a mebibyte has gathered or the wait is over. Empty (the platform's settings) for 0.
    package var referencesConsumerProperties: [String: String] {
        let milliseconds = Int(eventGather.milliseconds)
        guard milliseconds > 0 else { return [:] }
        return ["fetch.wait.max.ms": String(milliseconds), "fetch.min.bytes": String(1 << 20)]
    }

    /// The upload limits these settings describe.
    package var uploadLimits: UploadLimits {
        UploadLimits(maxFiles: maxFiles, maxFileBytes: maxFileBytes, maxVideoBytes: maxVideoBytes)
    }
}
