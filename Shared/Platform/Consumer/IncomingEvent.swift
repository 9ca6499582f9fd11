import Foundation
import SNSKafka

/// An event as a consumer receives it: the envelope metadata plus the raw message, decodable into the
/// payload type the handler expects for `metadata.type`.
package struct IncomingEvent: Sendable {
    package let metadata: EventMetadata
    package let message: KafkaConsumerMessage

    package init(message: KafkaConsumerMessage) throws {
        self.message = message
        self.metadata = try EventCoding.decoder().decode(EventMetadata.self, from: Data(message.value))
    }

    package var type: String { metadata.type }
    package var eventType: EventType? { EventType(rawValue: metadata.type) }

    /// A writer waits for consumer group `group` to apply this event (read-your-writes): that group announces it.
    /// Other groups do not (each announcement wakes the writer's barrier and every listening database backend).
    package func isAwaited(by group: String) -> Bool {
        message.headers.contains {
            $0.key == ReadYourWrites.awaitedHeader
                && ReadYourWrites.header(String(decoding: $0.value, as: UTF8.self), awaits: group)
        }
    }

    /// This consumer's announcement that it applied the event, on the writer's channel (read-your-writes).
    package func announcement(group: String) -> Announcement {
        Announcement(
            channel: ReadYourWrites.channel(writer: metadata.producer),
            payload: ReadYourWrites.announcement(group: group, eventId: metadata.eventId))
    }

    /// Decodes the payload; throws if the message does not hold a `P` (a poison message for this consumer).
    package func payload<P: EventPayload>(as type: P.Type = P.self) throws -> P {
        guard metadata.schemaVersion == P.schemaVersion else {
            throw EventDecodingError.unsupportedSchemaVersion(
                type: metadata.type, version: metadata.schemaVersion, supported: P.schemaVersion)
        }
        return try EventCoding.decoder().decode(EventEnvelope<P>.self, from: Data(message.value)).payload
    }
}

package enum EventDecodingError: Error, CustomStringConvertible {
    case unsupportedSchemaVersion(type: String, version: Int, supported: Int)

    package var description: String {
        switch self {
        case .unsupportedSchemaVersion(let type, let version, let supported):
            "event \(type) has schema major version \(version); this consumer understands \(supported)"
        }
    }
}
