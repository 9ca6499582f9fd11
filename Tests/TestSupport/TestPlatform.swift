import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSPlatform

/// Real PostgreSQL + real broker for platform-level tests: a private schema with the platform tables,
/// a running pool and producer, torn down afterwards.
package struct TestPlatform: Sendable {
    package let postgres: DatabasePool
    package let producer: KafkaProducer
    package let schema: SQLIdentifier
    package let outbox: Outbox
    package let brokers: String

    package static func kafkaConfiguration(clientId: String) throws -> KafkaConfiguration {
        KafkaConfiguration(bootstrapServers: try TestEnvironment.kafkaBrokers(), clientId: clientId, properties: [:])
    }

    /// Consumer settings that make group joins fast against the dev broker.
    package static let fastConsumerProperties: [String: String] = [
        "session.timeout.ms": "6000",
        "heartbeat.interval.ms": "500",
        "topic.metadata.refresh.interval.ms": "1000",
    ]

    package static func with<T: Sendable>(_ body: @Sendable (TestPlatform) async throws -> T) async throws -> T {
        let schema = try SQLIdentifier(TestEnvironment.unique("pt_"))
        // As a service's pool (`ServicePlatform`): the schema first on the search path, where the outbox's and the
        // consumers' prepared statements find their tables.
        var configuration = try DatabaseConfiguration(url: try TestEnvironment.databaseURL(), maxConnections: 10)
            .clientConfiguration
        configuration.options.additionalStartupParameters.append(("search_path", "\"\(schema.name)\", public"))
        let postgres = DatabasePool(
            PostgresClient(configuration: configuration, backgroundLogger: TestEnvironment.logger))
        let producer = try KafkaProducer(
            configuration: try kafkaConfiguration(clientId: "platform-test"), logger: TestEnvironment.logger)
        let platform = TestPlatform(
            postgres: postgres, producer: producer, schema: schema,
            outbox: Outbox(schema: schema, producerName: "platform-test"),
            brokers: try TestEnvironment.kafkaBrokers())
        return try await withBackgroundWork(
            [{ await postgres.run() }, { try await producer.run() }], name: "TestPlatform",
            beforeCancel: { await producer.shutdown() }
        ) {
            try await Migrator(schema: schema, migrations: PlatformMigrations.all(schema: schema))
                .migrate(client: postgres.client, logger: TestEnvironment.logger)
            return try await body(platform)
        }
    }

    /// Reads `topic` from the beginning in a fresh group until `done` says stop (or the hang guard fires).
    package func collect(
        topic: String, guardTimeout: Duration = .seconds(180),
        until done: @escaping @Sendable ([KafkaConsumerMessage]) -> Bool
    ) async throws -> [KafkaConsumerMessage] {
        try await Self.collect(topic: topic, guardTimeout: guardTimeout, until: done)
    }

    /// Reads `topic` of the test broker from the beginning in a fresh group until `done` says stop.
    package static func collect(
        topic: String, guardTimeout: Duration = .seconds(180),
        until done: @escaping @Sendable ([KafkaConsumerMessage]) -> Bool
    ) async throws -> [KafkaConsumerMessage] {
        let consumer = try KafkaConsumer(
            configuration: KafkaConfiguration(
                bootstrapServers: try TestEnvironment.kafkaBrokers(), clientId: "collector",
                properties: Self.fastConsumerProperties),
            groupId: TestEnvironment.unique("collect-"), topics: [topic], offsetReset: .earliest,
            logger: TestEnvironment.logger)
        return try await withThrowingTaskGroup(of: [KafkaConsumerMessage]?.self) { group in
            group.addTask {
                try await consumer.run(); return nil
            }
            group.addTask {
                try await Task.sleep(for: guardTimeout)  // hang guard only
                return nil
            }
            group.addTask {
                var seen: [KafkaConsumerMessage] = []
                for try await message in consumer.messages {
                    seen.append(message)
                    if done(seen) { return seen }
                }
                return seen
            }
            var result: [KafkaConsumerMessage] = []
            for try await value in group {
                if let value { result = value }
                break
            }
            await consumer.shutdown()
            group.cancelAll()
            return result
        }
    }
}
