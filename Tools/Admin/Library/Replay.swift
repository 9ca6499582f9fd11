import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSPlatform

/// `replay`: re-delivers history to one consumer group by moving its committed offsets back — to the beginning, to
/// an offset, or to a time. Times are resolved from the group's own `processed_events` (the first offset it
/// applied at or after that time, per partition), because the dev broker cannot look offsets up by time.
///
/// Re-delivered events the group already applied are skipped by its idempotency check, so a plain replay only
/// applies what it had skipped (events of types it did not know then). `reapply` also forgets the group's
/// processed-event records from the new offsets on, so every re-delivered event is applied again (our handlers
/// are upserts and tombstones: applying twice converges).
///
/// The group's consumers must be stopped: the reset joins the group and refuses unless it gets every partition.
package struct ReplayPlan: Codable, Sendable, Equatable {
    package struct Entry: Codable, Sendable, Equatable {
        package var topic: String
        package var partition: Int32
        package var committed: Int64?
        package var from: Int64
        package var high: Int64
        package var redeliver: Int64
    }

    package var group: String
    package var schema: String
    package var topics: [String]
    package var reapply: Bool
    package var entries: [Entry]
    package var total: Int64 { entries.reduce(0) { $0 + $1.redeliver } }

    enum CodingKeys: String, CodingKey { case group, schema, topics, reapply, entries }
}

package enum ReplayStart: Sendable, Equatable {
    case beginning
    case offset(Int64)
    case since(Date)
}

package enum Replay {
    /// - Parameters:
    ///   - schema, subscribedTopics: where the group records processed events and what it consumes; by default
    ///     from `ServiceCatalog` (the system's groups).
    package static func plan(
        group: String, topics requested: [String], start: ReplayStart, reapply: Bool,
        schema schemaName: String? = nil, subscribedTopics: [String]? = nil,
        kafka: KafkaConfiguration, client: PostgresClient, logger: Logger
    ) async throws -> ReplayPlan {
        let ownerSchema = try Self.schema(of: group, given: schemaName)
        let subscribed = subscribedTopics ?? ServiceCatalog.consumerTopics[group] ?? []
        let topics = requested.isEmpty ? subscribed : requested
        if let stray = topics.first(where: { !subscribed.contains($0) }) {
            throw AdminError("\(group) does not consume \(stray) (it consumes \(subscribed.joined(separator: ", ")))")
        }
        let schema = try SQLIdentifier(ownerSchema)
        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        var entries: [ReplayPlan.Entry] = []
        do {
            for topic in topics {
                let marks = try await admin.watermarks(topic: topic)
                let committed = try await admin.committedOffsets(
                    group: group, topic: topic, partitions: Int32(marks.count))
                for (partition, range) in marks.sorted(by: { $0.key < $1.key }) {
                    let from: Int64
                    switch start {
                    case .beginning:
                        from = range.low
                    case .offset(let offset):
                        from = min(max(offset, range.low), range.high)
                    case .since(let date):
                        let rows = try await client.query(
                            """
                            SELECT min(kafka_offset) FROM \(table: schema, "processed_events")
                            WHERE consumer = \(group) AND topic = \(topic) AND kafka_partition = \(Int(partition)) AND processed_at >= \(date)
                            """, logger: logger)
                        var first: Int64?
                        for try await value in rows.decode(Int64?.self) { first = value }
                        // Nothing applied since then: from where the group stands (nothing to re-deliver).
                        from = min(max(first ?? committed[partition] ?? range.high, range.low), range.high)
                    }
                    entries.append(
                        .init(
                            topic: topic, partition: partition, committed: committed[partition], from: from,
                            high: range.high, redeliver: range.high - from))
                }
            }
            await admin.close()
        } catch {
            await admin.close()
            throw error
        }
        return ReplayPlan(group: group, schema: ownerSchema, topics: topics, reapply: reapply, entries: entries)
    }

    /// The schema where `group` records its processed events: `given`, or its owner's in `ServiceCatalog`.
    private static func schema(of group: String, given: String?) throws -> String {
        try given ?? ServiceCatalog.owner(ofConsumer: group).schema
    }

    /// When `date` is older than every processed-event record the group still keeps, the time of its oldest record:
    /// the retention pruner (decision 0038) deleted the earlier ones, so a replay `--since date` can only start at the
    /// first message applied at or after that time. Nil when records that old exist (or the group has none).
    package static func recordsPruned(
        since date: Date, group: String, schema schemaName: String? = nil, client: PostgresClient, logger: Logger
    ) async throws -> Date? {
        let schema = try SQLIdentifier(try Self.schema(of: group, given: schemaName))
        let rows = try await client.query(
            """
            SELECT min(processed_at) FROM \(table: schema, "processed_events") WHERE consumer = \(group)
            """, logger: logger)
        var oldest: Date?
        for try await value in rows.decode(Date?.self) { oldest = value }
        guard let oldest, oldest > date else { return nil }
        return oldest
    }

    /// Moves the offsets (refusing while the group has live members), then, with `reapply`, forgets the processed
    /// records from the new offsets on. Returns how many records were forgotten.
    package static func apply(
        _ plan: ReplayPlan, kafka: KafkaConfiguration, client: PostgresClient, logger: Logger,
        joinTimeout: Duration = .seconds(30)
    ) async throws -> Int {
        do {
            try await KafkaGroupReset.commit(
                configuration: kafka, group: plan.group, topics: plan.topics, partitions: plan.entries.count,
                offsets: plan.entries.map {
                    KafkaTopicPartitionOffset(topic: $0.topic, partition: $0.partition, offset: .absolute($0.from))
                },
                joinTimeout: joinTimeout, logger: logger)
        } catch let error as KafkaGroupReset.GroupHasOtherMembers {
            throw AdminError("refusing to replay \(plan.group): \(error)")
        }
        guard plan.reapply else { return 0 }
        let schema = try SQLIdentifier(plan.schema)
        var forgotten = 0
        for entry in plan.entries where entry.redeliver > 0 {
            let rows = try await client.query(
                """
                WITH gone AS (
                    DELETE FROM \(table: schema, "processed_events")
                    WHERE consumer = \(plan.group) AND topic = \(entry.topic) AND kafka_partition = \(Int(entry.partition))
                      AND kafka_offset >= \(entry.from)
                    RETURNING 1)
                SELECT count(*)::int FROM gone
                """, logger: logger)
            for try await count in rows.decode(Int.self) { forgotten += count }
        }
        logger.info("replay prepared", metadata: ["group": "\(plan.group)", "forgotten": "\(forgotten)"])
        return forgotten
    }
}
