import Foundation
import Logging

/// The configuration every service shares. Each service adds its own settings beside it.
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `SNS_HTTP_HOST` | address to bind | `127.0.0.1` |
/// | `SNS_HTTP_PORT` | port to bind | per service |
/// | `SNS_DATABASE_URL` | `postgres://user:password@host:port/database`; `?host=/dir`: the Unix-domain socket there (decision 0037) | required |
/// | `SNS_DATABASE_MAX_CONNECTIONS` | pool size | 10 |
/// | `SNS_DATABASE_POOLS` | `per-event-loop`: posts' requests use a pool per event loop, each `max(2, pool size / loops)`, beside the shared pool (decision 0025); `shared`: one pool | `per-event-loop` |
/// | `SNS_KAFKA_BROKERS` | bootstrap servers, `host:port[,host:port]` | required |
/// | `SNS_API_KEY` | the `SesacKey` clients must send | required |
/// | `SNS_PRODUCT_IDS` | the G2 apps' `ProductId`s, comma-separated; any other is 421 (decision 0021) | none |
/// | `SNS_JWT_PUBLIC_KEY` / `_FILE` | ES256 public key (PEM) that verifies access tokens | required |
/// | `SNS_LOG_LEVEL` | trace … critical | `info` |
/// | `SNS_CONSUMER_MAX_ATTEMPTS` | tries before an event is dead-lettered | 5 |
/// | `SNS_CONSUMER_RETRY_BASE_MS` | first retry delay, doubled per try | 200 |
/// | `SNS_CONSUMER_BATCH_SIZE` | most events a consumer applies in one transaction (decision 0015) | 100 |
/// | `SNS_OUTBOX_POLL_MS` | outbox relay fallback poll interval | 1000 |
/// | `SNS_OUTBOX_GATHER_MS` | after a batch of several events, how long the relay lets more gather before reading again (decision 0035; 0: never) | 3 |
/// | `SNS_KAFKA_PROPERTIES` | extra librdkafka properties, `k=v;k=v` | none |
/// | `SNS_READ_YOUR_WRITES_TIMEOUT_MS` | longest a write's answer waits for other services' projections (0: never waits) | 3000 |
/// | `SNS_ANNOUNCE_HOST` | the IP address other services reach this process at, for read-your-writes announcements by datagram (decision 0050); `auto`: the address the host name resolves to; empty: announcements by `NOTIFY` | empty |
/// | `SNS_DATABASE_WATCH_MS` | how often the database watch probes; while it is down, requests get 503 at once (0: off) | 1000 |
/// | `SNS_SHUTDOWN_DRAIN_MS` | on SIGTERM, how long the replica drains before it stops (decision 0018) | 3000 |
/// | `SNS_SHUTDOWN_LIMIT_MS` | the longest SIGTERM takes to end the process, whatever is still waiting | 8000 |
/// | `SNS_OUTBOX_RETENTION_HOURS` | published outbox rows older than this are deleted (decision 0038; 0: kept for ever) | 168 |
/// | `SNS_PROCESSED_EVENTS_RETENTION_HOURS` | consumers' processed-event records older than this are deleted (0: kept for ever; else at least the outbox's) | 192 |
/// | `SNS_RETENTION_INTERVAL_MINUTES` | time between two pruning passes | 10 |
package struct PlatformConfiguration: Sendable {
    package var serviceName: String
    package var httpHost: String
    package var httpPort: Int
    package var database: DatabaseConfiguration
    /// Requests' statements on a pool per event loop (`LoopLocalPools`), for the services that ask for it (posts).
    package var databasePoolPerEventLoop: Bool
    package var kafkaBrokers: String
    package var kafkaProperties: [String: String]
    package var apiKey: String
    /// The registered G2 apps (`ProductId` values).
    package var productIds: Set<String>
    package var jwtPublicKeyPEM: String
    package var logLevel: Logger.Level
    package var consumerMaxAttempts: Int
    package var consumerRetryBase: Duration
    package var consumerBatchSize: Int
    package var outboxPollInterval: Duration
    /// `SNS_OUTBOX_GATHER_MS` (decision 0035).
    package var outboxGather: Duration
    package var readYourWritesTimeout: Duration
    /// `SNS_ANNOUNCE_HOST` (decision 0050): an IP address or `auto`; nil: announcements by `NOTIFY`.
    package var announceHost: String?
    /// What SIGTERM does: drain, then stop, within a bound. The executable runs the application with
    /// `runService(draining: configuration.platform.drain)`; the platform's router and `/ready` read its state.
    /// In-process applications (tests) drain for 0 and are not bounded: no gateway fronts them.
    package var drain: ShutdownDrain
    /// The `DatabaseWatch` probe interval (nil: no watch; in-process applications in tests run without one).
    package var databaseWatchInterval: Duration?
    /// What the retention pruner deletes, and how often (decision 0038).
    package var retention: RetentionPolicy

    package init(
        serviceName: String,
        httpHost: String = "127.0.0.1",
        httpPort: Int,
        database: DatabaseConfiguration,
        kafkaBrokers: String,
        kafkaProperties: [String: String] = [:],
        apiKey: String,
        productIds: Set<String> = [],
        jwtPublicKeyPEM: String,
        logLevel: Logger.Level = .info,
        consumerMaxAttempts: Int = 5,
        consumerRetryBase: Duration = .milliseconds(200),
        consumerBatchSize: Int = 100,
        outboxPollInterval: Duration = .seconds(1),
        outboxGather: Duration = .milliseconds(3),
        readYourWritesTimeout: Duration = .seconds(3),
        announceHost: String? = nil,
        shutdownDrain: Duration = .zero,
        shutdownLimit: Duration? = nil,
        databaseWatchInterval: Duration? = nil,
        databasePoolPerEventLoop: Bool = true,
        retention: RetentionPolicy = .keepEverything
    ) {
        self.retention = retention
        self.databasePoolPerEventLoop = databasePoolPerEventLoop
        self.serviceName = serviceName
        self.httpHost = httpHost
        self.httpPort = httpPort
        self.database = database
        self.kafkaBrokers = kafkaBrokers
        self.kafkaProperties = kafkaProperties
        self.apiKey = apiKey
        self.productIds = productIds
        self.jwtPublicKeyPEM = jwtPublicKeyPEM
        self.logLevel = logLevel
        self.consumerMaxAttempts = consumerMaxAttempts
        self.consumerRetryBase = consumerRetryBase
        self.consumerBatchSize = consumerBatchSize
        self.outboxPollInterval = outboxPollInterval
        self.outboxGather = outboxGather
        self.readYourWritesTimeout = readYourWritesTimeout
        self.announceHost = announceHost
        self.drain = ShutdownDrain(duration: shutdownDrain, limit: shutdownLimit)
        self.databaseWatchInterval = databaseWatchInterval
    }

    /// Reads and validates the shared variables; throws on the first bad one, naming it.
    package init(serviceName: String, defaultPort: Int, environment env: Environment) throws {
        self.serviceName = serviceName
        self.httpHost = env.string("SNS_HTTP_HOST", default: "127.0.0.1")
        self.httpPort = try env.int("SNS_HTTP_PORT", default: defaultPort, range: 1...65535)
        self.database = try DatabaseConfiguration(
            url: try env.string("SNS_DATABASE_URL"),
            variable: "SNS_DATABASE_URL",
            maxConnections: try env.int("SNS_DATABASE_MAX_CONNECTIONS", default: 10, range: 2...500)
        )
        switch env.string("SNS_DATABASE_POOLS", default: "per-event-loop") {
        case "per-event-loop": self.databasePoolPerEventLoop = true
        case "shared": self.databasePoolPerEventLoop = false
        default: throw ConfigurationError(variable: "SNS_DATABASE_POOLS", reason: "must be per-event-loop or shared")
        }
        self.kafkaBrokers = try env.string("SNS_KAFKA_BROKERS")
        self.kafkaProperties = try Self.parseProperties(
            env.optionalString("SNS_KAFKA_PROPERTIES"), variable: "SNS_KAFKA_PROPERTIES")
        self.apiKey = try env.secret("SNS_API_KEY")
        self.productIds = Set(
            env.string("SNS_PRODUCT_IDS", default: "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        self.jwtPublicKeyPEM = try env.secret("SNS_JWT_PUBLIC_KEY")
        let level = env.string("SNS_LOG_LEVEL", default: "info").lowercased()
        guard let logLevel = Logger.Level(rawValue: level) else {
            throw ConfigurationError(
                variable: "SNS_LOG_LEVEL", reason: "must be one of trace, debug, info, notice, warning, error, critical"
            )
        }
        self.logLevel = logLevel
        self.consumerMaxAttempts = try env.int("SNS_CONSUMER_MAX_ATTEMPTS", default: 5, range: 1...100)
        self.consumerRetryBase = .milliseconds(
            try env.int("SNS_CONSUMER_RETRY_BASE_MS", default: 200, range: 1...60_000))
        self.consumerBatchSize = try env.int("SNS_CONSUMER_BATCH_SIZE", default: 100, range: 1...10_000)
        self.outboxPollInterval = .milliseconds(try env.int("SNS_OUTBOX_POLL_MS", default: 1000, range: 10...60_000))
        self.outboxGather = .milliseconds(try env.int("SNS_OUTBOX_GATHER_MS", default: 3, range: 0...1000))
        self.readYourWritesTimeout = .milliseconds(
            try env.int("SNS_READ_YOUR_WRITES_TIMEOUT_MS", default: 3000, range: 0...300_000))
        let announceHost = env.string("SNS_ANNOUNCE_HOST", default: "").trimmingCharacters(in: .whitespaces)
        guard announceHost.isEmpty || announceHost == "auto" || AnnouncementSocket.parse("\(announceHost):1") != nil
        else {
            throw ConfigurationError(
                variable: "SNS_ANNOUNCE_HOST", reason: "must be an IP address, auto, or empty (announcements by NOTIFY)"
            )
        }
        self.announceHost = announceHost.isEmpty ? nil : announceHost
        let drain = try env.int("SNS_SHUTDOWN_DRAIN_MS", default: 3000, range: 0...60_000)
        let limit = try env.int("SNS_SHUTDOWN_LIMIT_MS", default: 8000, range: 1000...300_000)
        guard limit > drain else {
            throw ConfigurationError(variable: "SNS_SHUTDOWN_LIMIT_MS", reason: "must exceed SNS_SHUTDOWN_DRAIN_MS")
        }
        self.drain = ShutdownDrain(duration: .milliseconds(drain), limit: .milliseconds(limit))
        let watch = try env.int("SNS_DATABASE_WATCH_MS", default: 1000, range: 0...60_000)
        self.databaseWatchInterval = watch == 0 ? nil : .milliseconds(watch)
        self.retention = try RetentionPolicy(environment: env)
    }

    /// `k=v;k=v` (the format of `SNS_KAFKA_PROPERTIES`); a malformed pair names `variable`.
    package static func parseProperties(_ raw: String?, variable: String) throws -> [String: String] {
        guard let raw else { return [:] }
        var result: [String: String] = [:]
        for pair in raw.split(separator: ";") where !pair.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else {
                throw ConfigurationError(variable: variable, reason: "must be 'key=value;key=value'")
            }
            result[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return result
    }
}
