import Foundation
import SNSKafka
import SNSTestSupport
import Testing

@testable import SNSPlatform

/// A consumer reads an event's identity from the headers the outbox writes, and its JSON only for the payload; the
/// result is the same as decoding the envelope, and a message without those headers is still read.
@Suite("Incoming events")
struct IncomingEventTests {
    struct Probe: EventPayload {
        static let eventType = EventType.mediaStored
        var sequence: Int
        var note: String
    }

    static func envelope(requestId: String?) -> EventEnvelope<Probe> {
        EventEnvelope(
            type: Probe.eventType.rawValue, schemaVersion: Probe.schemaVersion, aggregateId: "aggregate-7",
            producer: "posts", requestId: requestId, payload: Probe(sequence: 7, note: "seven"))
    }

    /// The message the relay sends for `envelope`, as a consumer receives it.
    static func relayed(_ envelope: EventEnvelope<Probe>) throws -> KafkaConsumerMessage {
        let outbox = Outbox(schema: try SQLIdentifier("incoming_event_test"), producerName: "posts")
        let row = try outbox.row(envelope, topic: Probe.eventType.topic, traceparent: nil, awaitedBy: ["social"])
        let sent = Outbox.message(
            topic: row.topic, partitionKey: row.partitionKey, payload: row.payload, headersJSON: row.headers)
        return KafkaConsumerMessage(
            topic: sent.topic, partition: 0, offset: 0, key: sent.key, value: sent.value, headers: sent.headers,
            timestamp: nil)
    }

    static func identity(of envelope: EventEnvelope<Probe>) -> IncomingEvent.Identity {
        IncomingEvent.Identity(
            eventId: envelope.eventId, type: envelope.type, schemaVersion: envelope.schemaVersion,
            aggregateId: envelope.aggregateId, producer: envelope.producer, requestId: envelope.requestId)
    }

    @Test(arguments: ["req-1", nil])
    func theOutboxsHeadersGiveTheEnvelopesIdentity(requestId: String?) throws {
        let envelope = Self.envelope(requestId: requestId)
        let message = try Self.relayed(envelope)
        #expect(IncomingEvent.identity(fromHeadersOf: message) != nil, "read from the headers, not the JSON")
        let event = try IncomingEvent(message: message)
        #expect(event.metadata == Self.identity(of: envelope))
        let payload = try event.payload(as: Probe.self)
        #expect(payload.sequence == 7 && payload.note == "seven")
        #expect(event.isAwaited(by: "social") && !event.isAwaited(by: "market"))
    }

    @Test func aMessageWithoutTheHeadersIsReadFromItsJSON() throws {
        let envelope = Self.envelope(requestId: "req-2")
        var message = try Self.relayed(envelope)
        message.headers = []
        #expect(IncomingEvent.identity(fromHeadersOf: message) == nil)
        let event = try IncomingEvent(message: message)
        #expect(event.metadata == Self.identity(of: envelope))
        #expect(try event.payload(as: Probe.self).sequence == 7)
    }

    @Test func aMalformedHeaderFallsBackToTheJSON() throws {
        let envelope = Self.envelope(requestId: nil)
        var message = try Self.relayed(envelope)
        message.headers = message.headers.map {
            $0.key == EventHeader.eventId ? KafkaHeader(key: $0.key, string: "not-a-uuid") : $0
        }
        #expect(try IncomingEvent(message: message).metadata == Self.identity(of: envelope))
    }

    @Test func aPayloadOfAnotherSchemaVersionIsRefused() throws {
        var envelope = Self.envelope(requestId: nil)
        envelope.schemaVersion = Probe.schemaVersion + 1
        let event = try IncomingEvent(message: try Self.relayed(envelope))
        #expect(throws: EventDecodingError.self) { try event.payload(as: Probe.self) }
    }
}
