import Foundation

/// A Kafka record header. Values are opaque bytes; `init(key:string:)` / `stringValue` for UTF-8.
package struct KafkaHeader: Sendable, Hashable {
    package var key: String
    package var value: [UInt8]

    package init(key: String, value: [UInt8]) {
        self.key = key
        self.value = value
    }

    package init(key: String, string: String) {
        self.init(key: key, value: Array(string.utf8))
    }

    /// The value decoded as UTF-8, or nil if it is not valid UTF-8.
    package var stringValue: String? {
        String(validating: value, as: UTF8.self)
    }
}

/// A record to produce.
package struct KafkaOutgoingMessage: Sendable {
    package var topic: String
    /// Partitioning key; nil lets librdkafka pick a partition.
    package var key: [UInt8]?
    package var value: [UInt8]
    package var headers: [KafkaHeader]

    package init(topic: String, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader] = []) {
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
    }
}

/// Where the broker stored a produced record.
package struct KafkaDeliveryReport: Sendable, Hashable {
    package var topic: String
    package var partition: Int32
    package var offset: Int64

    package init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}

/// A consumed record.
package struct KafkaConsumerMessage: Sendable {
    package var topic: String
    package var partition: Int32
    package var offset: Int64
    package var key: [UInt8]?
    /// The payload; empty for a null (tombstone) value.
    package var value: [UInt8]
    package var headers: [KafkaHeader]
    /// Record timestamp (create or log-append time), if the broker supplied one.
    package var timestamp: Date?

    package init(
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
