import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSPlatform

/// A read model that can be rebuilt from the events: the consumer group that writes it, where, and how to
/// empty it. Write models (e.g. `social.follows`, `market.payments`) are never part of one.
package struct Projection: Sendable {
    package var name: String
    package var group: String
    package var schema: String
    package var topics: [String]
    /// Statements that empty the read model (fixed SQL from code, never from input).
    package var clear: [String]
    /// Tables whose row counts (and checksum) summarise the read model.
    package var tables: [String]

    package init(name: String, group: String, schema: String, topics: [String], clear: [String], tables: [String]) {
        self.name = name
        self.group = group
        self.schema = schema
        self.topics = topics
        self.clear = clear
        self.tables = tables
    }

    /// The system's rebuildable projections: the catalog's consumers that have a rebuild plan.
    package static var all: [Projection] {
        SystemCatalog.services.flatMap { service in
            service.consumers.compactMap { consumer in
                consumer.rebuild.map {
                    Projection(
                        name: $0.name, group: consumer.group, schema: service.schema, topics: consumer.topics,
                        clear: $0.clear, tables: $0.tables)
                }
            }
        }
    }

    package static func named(_ name: String) throws -> Projection {
        guard let projection = all.first(where: { $0.name == name }) else {
            throw AdminError("unknown projection '\(name)' (known: \(all.map(\.name).joined(separator: ", ")))")
        }
        return projection
    }
}

package enum Rebuild {
    package struct Summary: Codable, Sendable, Equatable {
        package var rows: [String: Int]
        /// md5 over every row of every table, in a fixed order: equal summaries mean equal read models.
        package var checksum: String
    }

    /// Resets the group to the beginning of its topics (refusing while its consumers run), then empties the read
    /// model and forgets the group's processed records, in one transaction. Returns how many messages the
    /// consumers will re-read when they start.
    package static func start(
        _ projection: Projection, kafka: KafkaConfiguration, client: PostgresClient, logger: Logger,
        joinTimeout: Duration = .seconds(30)
    ) async throws -> Int64 {
        let plan = try await Replay.plan(
            group: projection.group, topics: [], start: .beginning, reapply: false,
            schema: projection.schema, subscribedTopics: projection.topics,
            kafka: kafka, client: client, logger: logger)
        _ = try await Replay.apply(plan, kafka: kafka, client: client, logger: logger, joinTimeout: joinTimeout)
        let schema = try SQLIdentifier(projection.schema)
        let group = projection.group
        let clear = projection.clear
        try await client.transaction(logger: logger) { connection in
            for statement in clear { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            try await connection.query(
                "DELETE FROM \(table: schema, "processed_events") WHERE consumer = \(group)", logger: logger)
        }
        logger.info(
            "projection emptied; its consumers rebuild it when they start",
            metadata: ["projection": "\(projection.name)"])
        return plan.total
    }

    /// How far the group has read: (committed, end) summed over its partitions.
    package static func progress(_ projection: Projection, kafka: KafkaConfiguration, logger: Logger) async throws -> (
        done: Int64, total: Int64
    ) {
        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        var done: Int64 = 0, total: Int64 = 0
        do {
            for topic in projection.topics {
                let marks = try await admin.watermarks(topic: topic)
                let committed = try await admin.committedOffsets(
                    group: projection.group, topic: topic, partitions: Int32(marks.count))
                for (partition, range) in marks {
                    total += range.high - range.low
                    done += max(0, min(committed[partition] ?? range.low, range.high) - range.low)
                }
            }
            await admin.close()
        } catch {
            await admin.close()
            throw error
        }
        return (done, total)
    }

    package static func summary(_ projection: Projection, client: PostgresClient, logger: Logger) async throws
        -> Summary
    {
        var rows: [String: Int] = [:]
        var digests: [String] = []
        for table in projection.tables {
            // Table names are constants from `Projection.all` (or a test's own), never input.
            let result = try await client.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT count(*)::int, coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM \(table) t
                        """), logger: logger)
            for try await (count, digest) in result.decode((Int, String).self) {
                rows[table] = count
                digests.append(digest)
            }
        }
        return Summary(rows: rows, checksum: Fingerprint.fnv1a(digests.joined(separator: ",")))
    }
}

/// Combines the per-table md5 digests (computed by PostgreSQL) into one value for comparing two summaries.
/// FNV-1a, 64 bit: a fingerprint, not a security function.
enum Fingerprint {
    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
