import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSPlatform

/// Connections the tool's commands use: a PostgreSQL pool and (when needed) a Kafka producer, running for the
/// duration of one command and shut down afterwards.
package enum AdminRuntime {
    /// Logs go to stderr, never into the stdout that `--json` scripts read.
    private static let bootstrapped: Void = { LoggingSystem.bootstrap(StreamLogHandler.standardError) }()

    package static func logger(verbose: Bool) -> Logger {
        _ = bootstrapped
        var logger = Logger(label: "sns-admin")
        // SNS_LOG_LEVEL (as the services read it) overrides, e.g. `debug` with SNS_KAFKA_PROPERTIES="debug=cgrp".
        let override = ProcessInfo.processInfo.environment["SNS_LOG_LEVEL"].flatMap {
            Logger.Level(rawValue: $0.lowercased())
        }
        logger.logLevel = override ?? (verbose ? .info : .error)
        return logger
    }

    package static func withDatabase<T: Sendable>(
        url: String, logger: Logger, _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let configuration: DatabaseConfiguration
        do {
            configuration = try DatabaseConfiguration(url: url, maxConnections: 4)
        } catch {
            throw AdminError("bad database URL: \(error)")
        }
        let client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: logger)
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    await client.run(); return nil
                }
                defer { group.cancelAll() }
                try await probe(client, configuration: configuration, logger: logger)
                return try await body(client)
            }
        } catch let error as AdminError {
            throw error
        } catch let error as PSQLError {
            throw AdminError("database error: \(error.serverInfo?[.message] ?? String(reflecting: error.code))")
        } catch {
            let text = String(reflecting: error)
            if text.contains("ConnectionPool") || text.contains("connect") {
                throw AdminError(
                    "cannot connect to PostgreSQL at \(configuration.endpointDescription) (\(text))")
            }
            throw error
        }
    }

    /// Fails within `connectTimeout` when PostgreSQL cannot be reached (the pool itself keeps retrying for a minute).
    static func probe(
        _ client: PostgresClient, configuration: DatabaseConfiguration, logger: Logger,
        connectTimeout: Duration = .seconds(10)
    ) async throws {
        let reached = try await withThrowingTaskGroup(of: Bool.self) { probe in
            probe.addTask {
                try await client.query("SELECT 1", logger: logger); return true
            }
            probe.addTask {
                try await Task.sleep(for: connectTimeout); return false
            }
            defer { probe.cancelAll() }
            return try await probe.next() ?? false
        }
        guard reached else {
            throw AdminError(
                "cannot connect to PostgreSQL at \(configuration.endpointDescription) within \(connectTimeout)")
        }
    }

    package static func withProducer<T: Sendable>(
        configuration: KafkaConfiguration, logger: Logger, _ body: @Sendable (KafkaProducer) async throws -> T
    ) async throws -> T {
        let producer = try KafkaProducer(configuration: configuration, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await producer.run(); return nil
            }
            do {
                let result = try await body(producer)
                await producer.shutdown()
                group.cancelAll()
                return result
            } catch {
                await producer.shutdown()
                group.cancelAll()
                throw error
            }
        }
    }
}

/// A one-line progress bar on stderr (only when stderr is a terminal or `force` is set), so scripts reading
/// stdout (`--json`) are never disturbed.
package struct ProgressLine: Sendable {
    let label: String
    let enabled: Bool

    package init(label: String, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.enabled = enabled
    }

    package func update(_ done: Int, of total: Int) {
        guard enabled else { return }
        let width = 30
        let filled = total > 0 ? min(width, done * width / total) : width
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(done)/\(total)".utf8))
    }

    package func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
