import Foundation
import SNSKafka
import SNSPlatform

/// Thrown when a condition a test waits for never came true within the hang guard.
package struct GaveUpWaiting: Error, CustomStringConvertible {
    package let what: String
    package var description: String { "gave up waiting for: \(what)" }
}

/// Waits until `condition` holds — events travel through the real broker, so read models catch up a little
/// later. Not a timing assumption: it returns as soon as the condition is true and fails only after a
/// generous hang guard (an outbox relay can be held up for a minute by another test's broken replica).
package func eventually(_ what: String, guard seconds: Double = 180, _ condition: @Sendable () async throws -> Bool)
    async throws
{
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(25))
    }
    throw GaveUpWaiting(what: what)
}

extension TestPlatform {
    /// Publishes an event the way another service's outbox relay would; returns its event id.
    @discardableResult
    package func publish<P: EventPayload>(_ payload: P, key: String, producerName: String = "tests") async throws
        -> UUID
    {
        let envelope = EventEnvelope(
            type: P.eventType.rawValue, schemaVersion: P.schemaVersion, aggregateId: key,
            producer: producerName, requestId: nil, payload: payload)
        _ = try await producer.send(
            KafkaOutgoingMessage(
                topic: P.eventType.topic, key: Array(key.utf8), value: Array(try EventCoding.encoder().encode(envelope))
            ))
        return envelope.eventId
    }
}
