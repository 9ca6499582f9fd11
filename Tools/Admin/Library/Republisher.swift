import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSPlatform

/// `republish`: sends a service's already-published outbox history to Kafka again — for a broker that lost its
/// data (the in-memory dev broker after a restart, a new cluster). Rows go out in outbox order (so each
/// aggregate's events keep their order), with the same key, value and headers (event id included) as the relay
/// sent them, in batches whose delivery is awaited. Consumers are idempotent, so events they already applied are
/// skipped. Pending rows are left to the relay.
package struct Republisher: Sendable {
    package struct Filter: Sendable, Equatable {
        package var since: Date?
        package var until: Date?
        package var eventTypes: [String]

        package init(since: Date? = nil, until: Date? = nil, eventTypes: [String] = []) {
            self.since = since
            self.until = until
            self.eventTypes = eventTypes
        }
    }

    package struct Report: Codable, Sendable, Equatable {
        package var service: String
        package var matched: Int
        package var republished: Int
        package var dryRun: Bool
        package var byTopic: [String: Int]

        enum CodingKeys: String, CodingKey {
            case service, matched, republished, dryRun = "dry_run", byTopic = "by_topic"
        }
    }

    package let client: PostgresClient
    package let logger: Logger
    package var batchSize = 500

    package init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Counts what `run` would send.
    package func plan(service: ServiceCatalog.Service, filter: Filter) async throws -> Report {
        let schema = try SQLIdentifier(service.schema)
        guard
            try await OutboxInspector.tableExists(schema: schema.name, table: "outbox", client: client, logger: logger)
        else {
            throw AdminError("service \(service.name) has no outbox (schema \(schema.name) not migrated)")
        }
        let since = filter.since ?? Date.distantPast
        let until = filter.until ?? Date.distantFuture
        let rows = try await client.query(
            """
            SELECT topic, count(*)::int FROM \(table: schema, "outbox")
            WHERE published_at IS NOT NULL AND created_at >= \(since) AND created_at < \(until)
              AND (cardinality(\(filter.eventTypes)::text[]) = 0 OR event_type = ANY(\(filter.eventTypes)::text[]))
            GROUP BY topic
            """, logger: logger)
        var byTopic: [String: Int] = [:]
        for try await (topic, count) in rows.decode((String, Int).self) { byTopic[topic] = count }
        return Report(
            service: service.name, matched: byTopic.values.reduce(0, +), republished: 0, dryRun: true, byTopic: byTopic)
    }

    /// Sends the matching rows; `progress(done, total)` after each acknowledged batch.
    package func run(
        service: ServiceCatalog.Service, filter: Filter, producer: KafkaProducer,
        progress: @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws -> Report {
        var report = try await plan(service: service, filter: filter)
        report.dryRun = false
        let schema = try SQLIdentifier(service.schema)
        let since = filter.since ?? Date.distantPast
        let until = filter.until ?? Date.distantFuture
        var lastId: Int64 = 0
        while true {
            let rows = try await client.query(
                """
                SELECT id, topic, partition_key, payload::text, headers::text FROM \(table: schema, "outbox")
                WHERE id > \(lastId) AND published_at IS NOT NULL AND created_at >= \(since) AND created_at < \(until)
                  AND (cardinality(\(filter.eventTypes)::text[]) = 0 OR event_type = ANY(\(filter.eventTypes)::text[]))
                ORDER BY id LIMIT \(batchSize)
                """, logger: logger)
            var batch: [KafkaOutgoingMessage] = []
            for try await (id, topic, key, payload, headersJSON) in rows.decode(
                (Int64, String, String, String, String).self)
            {
                lastId = id
                batch.append(
                    Outbox.message(topic: topic, partitionKey: key, payload: payload, headersJSON: headersJSON))
            }
            if batch.isEmpty { break }
            _ = try await producer.send(batch)
            report.republished += batch.count
            progress(report.republished, max(report.matched, report.republished))
        }
        logger.info(
            "republished outbox history", metadata: ["service": "\(service.name)", "events": "\(report.republished)"])
        return report
    }
}
