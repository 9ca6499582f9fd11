import Foundation
import Logging
import SNSKafka
import SNSTestSupport
import Synchronization
import Testing

/// The broker under test, from SNS_TEST_KAFKA_BROKERS. Missing → the test fails (never skips).
enum KafkaTestBroker {
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "SNS_TEST_KAFKA_BROKERS is not set: start a broker: ./sns test provisions one, or set SNS_TEST_KAFKA_BROKERS "
                + "(e.g. `.build/debug/sns-dev-broker --address-file /tmp/kbroker.addr &` then "
                + "`SNS_TEST_KAFKA_BROKERS=$(cat /tmp/kbroker.addr) swift test --filter KafkaTests`)"
        }
    }

    static func bootstrapServers() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        guard let value = environment["SNS_TEST_KAFKA_BROKERS"], !value.isEmpty else {
            // A plain `swift test` (no stack): skipped with the reason; under ./sns test: a failure.
            if !TestEnvironment.hasStack { try Test.cancel("needs a broker: \(Missing())") }
            throw Missing()
        }
        return value
    }

    static func configuration(_ clientId: String, _ properties: [String: String] = [:]) throws -> KafkaConfiguration {
        KafkaConfiguration(bootstrapServers: try bootstrapServers(), clientId: clientId, properties: properties)
    }

    /// Private topic per test: the mock cluster (and a dev Kafka with auto.create.topics.enable)
    /// creates it on first produce, with 4 partitions on the mock.
    static func uniqueTopic(_ label: String) -> String {
        "test.\(label).\(UUID().uuidString.lowercased())"
    }

    static func uniqueGroup(_ label: String) -> String {
        "test.\(label).\(UUID().uuidString.lowercased())"
    }

    static var logger: Logger {
        var logger = Logger(label: "KafkaTests")
        logger.logLevel = .warning
        return logger
    }

    static func producer(_ properties: [String: String] = [:]) throws -> KafkaProducer {
        try KafkaProducer(configuration: configuration("kafka-tests-producer", properties), logger: logger)
    }

    /// Session timeout well above the mock's fixed 3 s initial rebalance delay; fast heartbeats.
    static func consumer(
        group: String, topic: String, offsetReset: KafkaConsumer.OffsetReset = .earliest,
        wakeInterval: Duration = KafkaConsumer.defaultWakeInterval
    ) throws -> KafkaConsumer {
        try KafkaConsumer(
            configuration: configuration(
                "kafka-tests-consumer", ["session.timeout.ms": "6000", "heartbeat.interval.ms": "500"]
            ),
            groupId: group, topics: [topic], offsetReset: offsetReset, logger: logger, wakeInterval: wakeInterval
        )
    }

    /// Reads exactly `count` messages (hang guard: 30 s).
    static func receive(_ count: Int, from consumer: KafkaConsumer) async throws -> [KafkaConsumerMessage] {
        try await withHangGuard("receiving \(count) messages") {
            var received: [KafkaConsumerMessage] = []
            for try await message in consumer.messages {
                received.append(message)
                if received.count == count { break }
            }
            return received
        }
    }
}

struct HangGuardExpired: Error, CustomStringConvertible {
    var what: String
    var description: String { "hang guard expired while \(what)" }
}

/// Runs `body`, failing with `HangGuardExpired` if it has not finished after `seconds`. Only a guard
/// against hangs: the limit is far above what the operation needs. Does not wait for `body` to
/// honour cancellation, so it also guards non-cancellable waits.
func withHangGuard<T: Sendable>(
    _ what: String, seconds: Int = 30, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = Race<T>()
    return try await withCheckedThrowingContinuation { continuation in
        race.install(continuation)
        let work = Task {
            do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            race.finish(.failure(HangGuardExpired(what: what)))
            work.cancel()
        }
    }
}

private final class Race<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)

    func install(_ value: CheckedContinuation<T, any Error>) {
        continuation.withLock { $0 = value }
    }

    func finish(_ result: Result<T, any Error>) {
        continuation.withLock { $0.take() }?.resume(with: result)
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
