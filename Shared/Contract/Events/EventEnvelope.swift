import Foundation

/// The envelope every event travels in (Kafka message value, JSON). The Kafka key is `aggregate_id`,
/// so all events of one aggregate land on one partition, in order.
///
/// `schema_version` is the payload's **major** version: consumers accept any minor change (extra fields are
/// ignored by `Decodable`) and treat an unknown major as a poison message.
package struct EventEnvelope<Payload: Codable & Sendable>: Codable, Sendable {
    package var eventId: UUID
    package var type: String
    package var schemaVersion: Int
    package var occurredAt: Date
    package var aggregateId: String
    package var producer: String
    package var requestId: String?
    package var payload: Payload

    package init(
        eventId: UUID = .timeOrdered(), type: String, schemaVersion: Int = 1, occurredAt: Date = Date(),
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
package struct EventMetadata: Codable, Sendable {
    package var eventId: UUID
    package var type: String
    package var schemaVersion: Int
    package var occurredAt: Date
    package var aggregateId: String
    package var producer: String
    package var requestId: String?

    enum CodingKeys: String, CodingKey {
        case eventId = "event_id", type, schemaVersion = "schema_version", occurredAt = "occurred_at"
        case aggregateId = "aggregate_id", producer, requestId = "request_id"
    }
}

/// Kafka header names carried by every event (so tooling can filter without parsing values).
package enum EventHeader {
    package static let eventId = "sns-event-id"
    package static let eventType = "sns-event-type"
    package static let schemaVersion = "sns-schema-version"
    package static let producer = "sns-producer"
    package static let requestId = "x-request-id"
    package static let traceparent = "traceparent"
    // Dead-letter headers.
    package static let dlqReason = "sns-dlq-reason"
    package static let dlqConsumer = "sns-dlq-consumer"
    package static let dlqOriginalTopic = "sns-dlq-original-topic"
    package static let dlqOriginalPartition = "sns-dlq-original-partition"
    package static let dlqOriginalOffset = "sns-dlq-original-offset"
    package static let dlqAttempts = "sns-dlq-attempts"
    package static let dlqFailedAt = "sns-dlq-failed-at"
}

/// The JSON coding used for events (internal wire format): ISO-8601 dates with milliseconds.
package enum EventCoding {
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom(APIDateFormat.encode)
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(APIDateFormat.decode)
        return decoder
    }
}
