import Foundation

/// A Kafka record header. Values are opaque bytes; `init(key:string:)` / `stringValue` for UTF-8.
public struct KafkaHeader: Sendable, Hashable {
    public var key: String
    public var value: [UInt8]

    public init(key: String, value: [UInt8]) {
        self.key = key
        self.value = value
    }

    public init(key: String, string: String) {
        self.init(key: key, value: Array(string.utf8))
    }

    /// The value decoded as UTF-8, or nil if it is not valid UTF-8.
    public var stringValue: String? {
        String(validating: value, as: UTF8.self)
    }
}

/// A record to produce.
public struct KafkaOutgoingMessage: Sendable {
    public var topic: String
    /// Partitioning key; nil lets librdkafka pick a partition.
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]

    public init(topic: String, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader] = []) {
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
    }
}

/// Where the broker stored a produced record.
public struct KafkaDeliveryReport: Sendable, Hashable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64

    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}

/// A consumed record.
public struct KafkaConsumerMessage: Sendable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    /// The payload; empty for a null (tombstone) value.
    public var value: [UInt8]
    public var headers: [KafkaHeader]
    /// Record timestamp (create or log-append time), if the broker supplied one.
    public var timestamp: Date?

    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8],
        headers: [KafkaHeader] = [], timestamp: Date? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }
}
