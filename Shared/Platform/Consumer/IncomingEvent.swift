import Foundation
import SNSKafka

/// An event as a consumer receives it: the envelope's identity plus the raw message, decodable into the
/// payload type the handler expects for `metadata.type`.
///
/// The identity comes from the message's headers, which the outbox writes from the same envelope (`Outbox.row`), so a
/// message's JSON is parsed once, for its payload, instead of a second time for its metadata (a fifth of a
/// consumer's CPU per event went to JSON). A message without those headers (written by hand, or by an older tool)
/// has its envelope's metadata decoded instead.
package struct IncomingEvent: Sendable {
    /// What a consumer needs of the envelope before it knows the payload type.
    package struct Identity: Sendable, Equatable {
        package var eventId: UUID
        package var type: String
        package var schemaVersion: Int
        /// The message's key: the outbox keys every event by its aggregate.
        package var aggregateId: String
        package var producer: String
        package var requestId: String?
    }

    package let metadata: Identity
    package let message: KafkaConsumerMessage

    package init(message: KafkaConsumerMessage) throws {
        let identity = try Self.identity(of: message)
        self.init(metadata: identity, message: message)
    }

    init(metadata: Identity, message: KafkaConsumerMessage) {
        self.metadata = metadata
        self.message = message
    }

    /// From the headers when they are complete, else from the envelope's JSON.
    static func identity(of message: KafkaConsumerMessage) throws -> Identity {
        if let identity = identity(fromHeadersOf: message) { return identity }
        let envelope = try EventCoding.decoder().decode(EventMetadata.self, from: Data(message.value))
        return Identity(
            eventId: envelope.eventId, type: envelope.type, schemaVersion: envelope.schemaVersion,
            aggregateId: envelope.aggregateId, producer: envelope.producer, requestId: envelope.requestId)
    }

    /// The identity the outbox's headers and key give (`Outbox.row`), when all of them are there and well formed.
    static func identity(fromHeadersOf message: KafkaConsumerMessage) -> Identity? {
        var eventId: UUID? = nil
        var type: String? = nil
        var version: Int? = nil
        var producer: String? = nil
        var requestId: String? = nil
        for header in message.headers {
            switch header.key {
            case EventHeader.eventId: eventId = header.stringValue.flatMap(UUID.init(uuidString:))
            case EventHeader.eventType: type = header.stringValue
            case EventHeader.schemaVersion: version = header.stringValue.flatMap { Int($0) }
            case EventHeader.producer: producer = header.stringValue
            case EventHeader.requestId: requestId = header.stringValue
            default: continue
            }
        }
        guard let eventId, let type, let version, let producer, let key = message.key else { return nil }
        return Identity(
            eventId: eventId, type: type, schemaVersion: version, aggregateId: String(decoding: key, as: UTF8.self),
            producer: producer, requestId: requestId)
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

    /// This consumer's announcement that it applied the event (read-your-writes): on the writer's channel, or to the
    /// writer's socket when the event names one (`sns-awaited-at`, decision 0050).
    package func announcement(group: String) -> Announcement {
        let address = message.headers.first { $0.key == ReadYourWrites.awaitedAtHeader }
            .flatMap { AnnouncementSocket.parse(String(decoding: $0.value, as: UTF8.self)) }
        return Announcement(
            channel: ReadYourWrites.channel(writer: metadata.producer),
            payload: ReadYourWrites.announcement(group: group, eventId: metadata.eventId), datagramTo: address)
    }

    /// Decodes the payload; throws if the message does not hold a `P` (a poison message for this consumer).
    package func payload<P: EventPayload>(as type: P.Type = P.self) throws -> P {
        guard metadata.schemaVersion == P.schemaVersion else {
            throw EventDecodingError.unsupportedSchemaVersion(
                type: metadata.type, version: metadata.schemaVersion, supported: P.schemaVersion)
        }
        return try EventCoding.decoder().decode(PayloadOnly<P>.self, from: Data(message.value)).payload
    }
}

/// An envelope's payload alone: decoding skips the metadata (its id, date and strings) already known.
private struct PayloadOnly<Payload: Decodable>: Decodable {
    let payload: Payload
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
