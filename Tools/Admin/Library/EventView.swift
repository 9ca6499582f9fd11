import Foundation
import SNSKafka
import SNSPlatform

/// One Kafka message as operators read it: where it is, and the envelope's identity (type, key, id, time,
/// request id). Messages that are not envelopes are shown too, with what could be read.
package struct EventView: Codable, Sendable, Equatable {
    package var topic: String
    package var partition: Int32
    package var offset: Int64
    package var key: String?
    package var type: String?
    package var eventId: String?
    package var occurredAt: Date?
    package var requestId: String?
    package var producer: String?
    package var schemaVersion: Int?
    package var payload: String?

    enum CodingKeys: String, CodingKey {
        case topic, partition, offset, key, type, producer, payload
        case eventId = "event_id", occurredAt = "occurred_at", requestId = "request_id", schemaVersion =
            "schema_version"
    }

    package init(_ message: KafkaConsumerMessage, withPayload: Bool) {
        topic = message.topic
        partition = message.partition
        offset = message.offset
        key = message.key.map { String(decoding: $0, as: UTF8.self) }
        if let metadata = try? EventCoding.decoder().decode(EventMetadata.self, from: Data(message.value)) {
            type = metadata.type
            eventId = metadata.eventId.uuidString.lowercased()
            occurredAt = metadata.occurredAt
            requestId = metadata.requestId
            producer = metadata.producer
            schemaVersion = metadata.schemaVersion
        } else {
            type = message.headers.last { $0.key == EventHeader.eventType }?.stringValue
        }
        payload = withPayload ? String(decoding: message.value, as: UTF8.self) : nil
    }

    /// `tail`'s filters: any of `types` (empty = all) and the exact key (nil = all).
    package func matches(types: [String], key wanted: String?) -> Bool {
        (types.isEmpty || types.contains(type ?? "")) && (wanted == nil || key == wanted)
    }

    package var line: String {
        let time = occurredAt.map { APIDateFormat.string(from: $0) } ?? "-"
        return
            "\(time)  \(type ?? "?")  key=\(key ?? "-")  id=\(eventId ?? "-")  req=\(requestId ?? "-")  \(topic)[\(partition)]@\(offset)"
    }
}
