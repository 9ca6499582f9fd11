internal import CRDKafka

/// A topic in the cluster metadata.
package struct KafkaTopicInfo: Sendable, Equatable {
    package var name: String
    package var partitions: Int

    package init(name: String, partitions: Int) {
        self.name = name
        self.partitions = partitions
    }
}

/// A partition's offset range: `low` is the first offset still stored, `high` the offset the next
/// record will get (so `high - low` records are stored; `low == high` means empty).
package struct KafkaWatermarks: Sendable, Equatable {
    package var low: Int64
    package var high: Int64

    package init(low: Int64, high: Int64) {
        self.low = low
        self.high = high
    }
}

/// A consumer group as the broker describes it (ListGroups + DescribeGroups).
package struct KafkaGroupInfo: Sendable, Equatable {
    package var name: String
    /// As the broker reports it: "Stable", "Empty", "PreparingRebalance", "CompletingRebalance", "Dead".
    package var state: String
    /// Live members (0 for an Empty group).
    package var memberCount: Int

    package init(name: String, state: String, memberCount: Int) {
        self.name = name
        self.state = state
        self.memberCount = memberCount
    }
}

/// A position in a partition: where to start reading, or what to commit.
package enum KafkaOffset: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The partition's first stored record (low watermark; `RD_KAFKA_OFFSET_BEGINNING`).
    case beginning
    /// After the partition's last record (high watermark; `RD_KAFKA_OFFSET_END`).
    case end
    /// An absolute offset (≥ 0).
    case absolute(Int64)

    package init(integerLiteral value: Int64) {
        self = .absolute(value)
    }

    package var description: String {
        switch self {
        case .beginning: "beginning"
        case .end: "end"
        case .absolute(let offset): "\(offset)"
        }
    }

    /// The value librdkafka expects in `rd_kafka_topic_partition_t.offset`.
    var librdkafkaValue: Int64 {
        switch self {
        case .beginning: Int64(RD_KAFKA_OFFSET_BEGINNING)
        case .end: Int64(RD_KAFKA_OFFSET_END)
        case .absolute(let offset): offset
        }
    }
}

/// A topic partition and an offset in it.
package struct KafkaTopicPartitionOffset: Sendable, Hashable, CustomStringConvertible {
    package var topic: String
    package var partition: Int32
    package var offset: KafkaOffset

    package init(topic: String, partition: Int32, offset: KafkaOffset) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    package var description: String {
        "\(topic)[\(partition)]@\(offset)"
    }
}
