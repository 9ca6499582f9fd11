import Foundation
import Logging
import NIOPosix
import PostgresNIO
import SNSPlatform
import Testing

/// Where the test suite's real PostgreSQL, Kafka-protocol broker and gateway are. `./sns test` starts them
/// and exports these variables.
///
/// Without them (a plain `swift test`), a test that asks for one is cancelled — reported as skipped, with the
/// reason — so the tests that need no stack (the fast tier: deployment files, parsers, catalogs, property tests of
/// pure code) still run and pass on their own. Under `./sns test` (`SNS_TEST_STATE_DIR` set) a missing variable is
/// a failure, as it means the stack is broken, not absent.
package enum TestEnvironment {
    package struct Missing: Error, CustomStringConvertible {
        package let variable: String
        package init(variable: String) { self.variable = variable }
        package var description: String {
            "\(variable) is not set: run the suite with `./sns test`, which provisions PostgreSQL, the broker and the gateway"
        }
    }

    /// Whether the tests run under `./sns test`, i.e. with the whole stack.
    package static var hasStack: Bool { ProcessInfo.processInfo.environment["SNS_TEST_STATE_DIR"]?.isEmpty == false }

    static func value(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            if !hasStack { try Test.cancel("needs the test stack (\(name)): run `./sns test`") }
            throw Missing(variable: name)
        }
        return value
    }

    package static func databaseURL() throws -> String { try value("SNS_TEST_DATABASE_URL") }
    package static func kafkaBrokers() throws -> String { try value("SNS_TEST_KAFKA_BROKERS") }
    /// A `LISTEN` connection of its own on the test database (run it beside what subscribes to it).
    package static func notificationListener() throws -> NotificationListener {
        NotificationListener(database: try DatabaseConfiguration(url: try databaseURL()), logger: logger)
    }
    package static func gatewayURL() throws -> String { try value("SNS_TEST_GATEWAY_URL") }
    package static func apiKey() throws -> String { try value("SNS_TEST_API_KEY") }
    /// The G2 app the test stack registers (`SNS_PRODUCT_IDS` of the local profiles).
    package static let productId = "sns-g2-test"
    /// The running auth and media processes, for services that call them directly (not through the gateway).
    package static func authURL() throws -> String { try value("SNS_TEST_AUTH_URL") }
    package static func mediaURL() throws -> String { try value("SNS_TEST_MEDIA_URL") }
    /// The stack's PortOne test server (its `/__sandbox/` API creates payments and delivers webhooks).
    package static func portOneURL() throws -> String { try value("SNS_TEST_PORTONE_URL") }
    /// The stack's identity-provider test server (Firebase, Apple, Kakao; its `/__sandbox/` API issues tokens).
    package static func identityProviderURL() throws -> String { try value("SNS_TEST_IDP_URL") }
    /// Where the built executables are (`.build/debug`), for tests that run the real processes.
    package static func binaryDirectory() throws -> String { try value("SNS_TEST_BIN_DIR") }

    package static func jwtPrivateKeyPEM() throws -> String {
        try String(contentsOfFile: try value("SNS_TEST_JWT_PRIVATE_KEY_FILE"), encoding: .utf8)
    }
    package static func jwtPublicKeyPEM() throws -> String {
        try String(contentsOfFile: try value("SNS_TEST_JWT_PUBLIC_KEY_FILE"), encoding: .utf8)
    }

    package static let logger: Logger = {
        var logger = Logger(label: "sns.test")
        logger.logLevel =
            ProcessInfo.processInfo.environment["SNS_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        return logger
    }()

    /// Shared platform configuration for an in-process service under test (HTTP port unused in router tests).
    package static func platformConfiguration(serviceName: String) throws -> PlatformConfiguration {
        PlatformConfiguration(
            serviceName: serviceName,
            httpHost: "127.0.0.1",
            httpPort: 0,
            database: try DatabaseConfiguration(url: try databaseURL(), maxConnections: 8),
            kafkaBrokers: try kafkaBrokers(),
            kafkaProperties: [:],
            apiKey: try apiKey(),
            productIds: [productId],
            jwtPublicKeyPEM: try jwtPublicKeyPEM(),
            logLevel: .warning,
            consumerMaxAttempts: 3,
            consumerRetryBase: .milliseconds(20),
            outboxPollInterval: .milliseconds(200),
            // In-process services leave read-your-writes to the stack's processes (tested through the gateway and
            // in ReadYourWritesBarrierTests): a LISTEN connection per instance would wake hundreds of backends
            // on every NOTIFY of the suite.
            readYourWritesTimeout: .zero
        )
    }

    /// Runs `body` with a running `PostgresClient` on the test database.
    /// `ownEventLoop`: the pool runs on an event loop of its own, for tests that provoke PostgresNIO's hang on a
    /// connection the server closed (known risks). In full-suite runs, unrelated tests' transactions on the shared
    /// event loops stalled for 30 s right after such a test; a private loop keeps whatever it does to itself.
    package static func withDatabase<T: Sendable>(
        ownEventLoop: Bool = false, _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let configuration = try DatabaseConfiguration(url: try databaseURL(), maxConnections: 6).clientConfiguration
        let group = ownEventLoop ? MultiThreadedEventLoopGroup(numberOfThreads: 1) : nil
        let client =
            group.map { PostgresClient(configuration: configuration, eventLoopGroup: $0, backgroundLogger: logger) }
            ?? PostgresClient(configuration: configuration, backgroundLogger: logger)
        // not awaited: a wedged loop must not hold the test
        defer { if let group { group.shutdownGracefully { _ in } } }
        return try await withBackgroundWork([{ await client.run() }], name: "withDatabase") {
            try await body(client)
        }
    }

    /// A unique suffix for test data (emails, nicks, topics, groups) so parallel tests never collide.
    package static func unique(_ prefix: String = "t") -> String {
        "\(prefix)\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
    }
}
