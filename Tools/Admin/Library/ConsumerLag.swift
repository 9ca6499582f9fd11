import Logging
import SNSKafka
import SNSPlatform

/// How far each consumer group of the catalog is behind the topics it reads: per group and topic, the messages
/// between its committed offsets and the partitions' ends. Read with OffsetFetch and the watermarks, without joining
/// any group, so it is safe while the services run.
///
/// Offsets are committed about once a second (decision 0030): a group that has applied everything shows the last
/// second's messages as lag until its next commit. A partition the group never committed on counts from the
/// partition's start (the services' consumers start there, `auto.offset.reset=earliest`).
package struct ConsumerLag: Sendable, Encodable {
    package struct Row: Sendable, Encodable {
        package var group: String
        package var topic: String
        /// Messages the group has not yet committed past, over every partition of the topic.
        package var lag: Int64
        /// Partitions on which the group has no committed offset although messages are stored there.
        package var uncommittedPartitions: Int

        enum CodingKeys: String, CodingKey {
            case group, topic, lag
            case uncommittedPartitions = "uncommitted_partitions"
        }
    }

    package var rows: [Row]

    /// Whether every group has committed up to the end of every topic it reads.
    package var caughtUp: Bool { rows.allSatisfy { $0.lag == 0 } }

    enum CodingKeys: String, CodingKey {
        case rows
        case caughtUp = "caught_up"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rows, forKey: .rows)
        try container.encode(caughtUp, forKey: .caughtUp)
    }

    /// Every group of the catalog (or only `groups`, each checked against the catalog) on every topic it reads.
    package static func measure(groups: [String] = [], kafka: KafkaConfiguration, logger: Logger) async throws
        -> ConsumerLag
    {
        let catalog = SystemCatalog.consumers
        for group in groups where !catalog.contains(where: { $0.group == group }) {
            _ = try ServiceCatalog.owner(ofConsumer: group)  // throws, naming the known groups
        }
        let chosen = groups.isEmpty ? catalog : catalog.filter { groups.contains($0.group) }
        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        var rows: [Row] = []
        do {
            var ends: [String: [Int32: KafkaWatermarks]] = [:]
            for consumer in chosen {
                for topic in consumer.topics {
                    if ends[topic] == nil { ends[topic] = try await admin.watermarks(topic: topic) }
                    let marks = ends[topic] ?? [:]
                    let committed = try await admin.committedOffsets(
                        group: consumer.group, topic: topic, partitions: Int32(marks.count))
                    var lag: Int64 = 0
                    var uncommitted = 0
                    for (partition, range) in marks {
                        if let offset = committed[partition] {
                            lag += max(0, range.high - max(offset, range.low))
                        } else if range.high > range.low {
                            lag += range.high - range.low
                            uncommitted += 1
                        }
                    }
                    rows.append(
                        Row(group: consumer.group, topic: topic, lag: lag, uncommittedPartitions: uncommitted))
                }
            }
            await admin.close()
        } catch {
            await admin.close()
            throw AdminError("cannot read the consumer groups' offsets: \(error)")
        }
        return ConsumerLag(rows: rows)
    }
}
