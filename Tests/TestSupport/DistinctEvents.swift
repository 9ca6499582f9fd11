import SNSKafka
import SNSPlatform

/// Publication is at least once: a relay may send an event again after an attempt it saw no acknowledgement for,
/// and a republish (`sns-admin outbox republish`) sends events a second time on purpose. Consumers skip a repeat by
/// its event id; tests that read a topic count each distinct event once, the same way.
extension KafkaConsumerMessage {
    package func header(_ name: String) -> String? {
        headers.first { $0.key == name }?.stringValue
    }
}

extension Array where Element == KafkaConsumerMessage {
    /// The messages keyed `key`, each event id once, in the order the topic holds them.
    package func distinctEvents(key: String) -> [KafkaConsumerMessage] {
        let key = [UInt8](key.utf8)
        var seen = Set<String>()
        return filter { $0.key == key && seen.insert($0.header(EventHeader.eventId) ?? "").inserted }
    }
}

extension TestPlatform {
    /// Reads `topic` from the beginning until it holds `count` distinct events keyed `key`; returns those.
    package static func collectEvents(topic: String, key: String, count: Int) async throws -> [KafkaConsumerMessage] {
        try await collect(topic: topic) { $0.distinctEvents(key: key).count >= count }.distinctEvents(key: key)
    }
}
