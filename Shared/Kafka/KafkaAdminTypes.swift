internal import CRDKafka

/// A topic in the cluster metadata.
public struct KafkaTopicInfo: Sendable, Equatable {
    public var name: String
    public var partitions: Int

    public init(name: String, partitions: Int) {
        self.name = name
        self.partitions = partitions
    }
}

/// A partition's offset range: `low` is the first offset still stored, `high` the offset the next
/// record will get (so `high - low` records are stored; `low == high` means empty).
public struct KafkaWatermarks: Sendable, Equatable {
    public var low: Int64
    public var high: Int64

    public init(low: Int64, high: Int64) {
        self.low = low
        self.high = high
    }
}

/// A consumer group as the broker describes it (ListGroups + DescribeGroups).
public struct KafkaGroupInfo: Sendable, Equatable {
    public var name: String
    /// As the broker reports it: "Stable", "Empty", "PreparingRebalance", "CompletingRebalance", "Dead".
    public var state: String
    /// Live members (0 for an Empty group).
    public var memberCount: Int

    public init(name: String, state: String, memberCount: Int) {
        self.name = name
        self.state = state
        self.memberCount = memberCount
    }
}

/// A position in a partition: where to start reading, or what to commit.
public enum KafkaOffset: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The partition's first stored record (low watermark; `RD_KAFKA_OFFSET_BEGINNING`).
    case beginning
    /// After the partition's last record (high watermark; `RD_KAFKA_OFFSET_END`).
    case end
    /// An absolute offset (≥ 0).
    case absolute(Int64)

    public init(integerLiteral value: Int64) {
        self = .absolute(value)
    }

    public var description: String {
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
public struct KafkaTopicPartitionOffset: Sendable, Hashable, CustomStringConvertible {
    public var topic: String
    public var partition: Int32
    public var offset: KafkaOffset

    public init(topic: String, partition: Int32, offset: KafkaOffset) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    public var description: String {
        "\(topic)[\(partition)]@\(offset)"
    }
}
