import Foundation

/// The envelope every event travels in (Kafka message value, JSON). The Kafka key is `aggregate_id`,
/// so all events of one aggregate land on one partition, in order.
///
/// `schema_version` is the payload's **major** version: consumers accept any minor change (extra fields are
/// ignored by `Decodable`) and treat an unknown major as a poison message.
public struct EventEnvelope<Payload: Codable & Sendable>: Codable, Sendable {
    public var eventId: UUID
    public var type: String
    public var schemaVersion: Int
    public var occurredAt: Date
    public var aggregateId: String
    public var producer: String
    public var requestId: String?
    public var payload: Payload

    public init(
        eventId: UUID = UUID(), type: String, schemaVersion: Int = 1, occurredAt: Date = Date(),
        aggregateId: String, producer: String, requestId: String?, payload: Payload
    ) {
        self.eventId = eventId
        self.type = type
        self.schemaVersion = schemaVersion
        self.occurredAt = occurredAt
        self.aggregateId = aggregateId
        self.producer = producer
        self.requestId = requestId
        self.payload = payload
    }

    enum CodingKeys: String, CodingKey {
        case eventId = "event_id", type, schemaVersion = "schema_version", occurredAt = "occurred_at"
        case aggregateId = "aggregate_id", producer, requestId = "request_id", payload
    }
}

/// The envelope's fields without the payload: what a consumer reads before it knows the payload type.
public struct EventMetadata: Codable, Sendable {
    public var eventId: UUID
    public var type: String
    public var schemaVersion: Int
    public var occurredAt: Date
    public var aggregateId: String
    public var producer: String
    public var requestId: String?

    enum CodingKeys: String, CodingKey {
        case eventId = "event_id", type, schemaVersion = "schema_version", occurredAt = "occurred_at"
        case aggregateId = "aggregate_id", producer, requestId = "request_id"
    }
}

/// Kafka header names carried by every event (so tooling can filter without parsing values).
public enum EventHeader {
    public static let eventId = "sns-event-id"
    public static let eventType = "sns-event-type"
    public static let schemaVersion = "sns-schema-version"
    public static let producer = "sns-producer"
    public static let requestId = "x-request-id"
    public static let traceparent = "traceparent"
    // Dead-letter headers.
    public static let dlqReason = "sns-dlq-reason"
    public static let dlqConsumer = "sns-dlq-consumer"
    public static let dlqOriginalTopic = "sns-dlq-original-topic"
    public static let dlqOriginalPartition = "sns-dlq-original-partition"
    public static let dlqOriginalOffset = "sns-dlq-original-offset"
    public static let dlqAttempts = "sns-dlq-attempts"
    public static let dlqFailedAt = "sns-dlq-failed-at"
}

/// The JSON coding used for events (internal wire format): ISO-8601 dates with milliseconds.
public enum EventCoding {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom(APIDateFormat.encode)
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(APIDateFormat.decode)
        return decoder
    }
}
