import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSPlatform

/// `dlq list / show / retry / drop`. Dead letters live on `sns.dead-letter` (a consumer parks a message there
/// after its retries, with `sns-dlq-*` headers saying why). Kafka cannot delete or edit them, so what operators
/// did with each one (retried, dropped) is kept in the tool's own table `ops.dlq_actions`, keyed by the dead
/// letter's partition and offset. `retry` sends the original message (key, value, headers without `sns-dlq-*`)
/// back to its original topic: every consumer group sees it again, and the idempotent consumers that had applied
/// it skip it, so only the one that failed applies it now (after the events of its aggregate that came since —
/// retrying is for effects that do not depend on that order, or after the cause was fixed).
package struct DeadLetter: Codable, Sendable, Equatable {
    package var id: String
    package var partition: Int32
    package var offset: Int64
    package var consumer: String?
    package var reason: String?
    package var attempts: Int?
    package var failedAt: String?
    package var originalTopic: String?
    package var originalPartition: Int?
    package var originalOffset: Int?
    package var eventType: String?
    package var eventId: String?
    package var key: String?
    package var state: String
    package var payload: String?

    enum CodingKeys: String, CodingKey {
        case id, partition, offset, consumer, reason, attempts, state, key, payload
        case failedAt = "failed_at", originalTopic = "original_topic", originalPartition = "original_partition"
        case originalOffset = "original_offset", eventType = "event_type", eventId = "event_id"
    }
}

package struct DeadLetterStore: Sendable {
    package let client: PostgresClient
    package let logger: Logger
    static let schema = "ops"

    package init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Creates `ops.dlq_actions` if needed (the tool's only table).
    package func prepare() async throws {
        let schema = try SQLIdentifier(Self.schema)
        _ = try await Migrator(
            schema: schema,
            migrations: [
                Migration(
                    version: 1, name: "dlq_actions",
                    sql: """
                        -- Keyed by position *and* the dead letter's own failure time: after a broker lost its data, offsets
                        -- start again at 0, and a new dead letter must not inherit an old one's action.
                        CREATE TABLE ops.dlq_actions (
                            dlq_partition integer NOT NULL,
                            dlq_offset bigint NOT NULL,
                            failed_at text NOT NULL,
                            action text NOT NULL CHECK (action IN ('retried', 'dropped')),
                            detail text,
                            at timestamptz NOT NULL DEFAULT now(),
                            PRIMARY KEY (dlq_partition, dlq_offset, failed_at)
                        );
                        """)
            ]
        ).migrate(client: client, logger: logger)
    }

    /// Whether `ops.dlq_actions` exists: the read-only commands (`list`, `show`) do not create it.
    func prepared() async throws -> Bool {
        let rows = try await client.query("SELECT to_regclass('ops.dlq_actions') IS NOT NULL", logger: logger)
        for try await exists in rows.decode(Bool.self) { return exists }
        return false
    }

    func actions() async throws -> [String: String] {
        guard try await prepared() else { return [:] }
        let rows = try await client.query(
            "SELECT dlq_partition, dlq_offset, failed_at, action FROM ops.dlq_actions", logger: logger)
        var actions: [String: String] = [:]
        for try await (partition, offset, failedAt, action) in rows.decode((Int, Int64, String, String).self) {
            actions["\(partition):\(offset)|\(failedAt)"] = action
        }
        return actions
    }

    func action(for letter: DeadLetter) async throws -> String? {
        let rows = try await client.query(
            """
            SELECT action FROM ops.dlq_actions
            WHERE dlq_partition = \(Int(letter.partition)) AND dlq_offset = \(letter.offset) AND failed_at = \(letter.failedAt ?? "")
            """, logger: logger)
        for try await action in rows.decode(String.self) { return action }
        return nil
    }

    /// Records an action; false if the dead letter was already retried or dropped.
    func record(_ letter: DeadLetter, action: String, detail: String?) async throws -> Bool {
        let rows = try await client.query(
            """
            INSERT INTO ops.dlq_actions (dlq_partition, dlq_offset, failed_at, action, detail)
            VALUES (\(Int(letter.partition)), \(letter.offset), \(letter.failedAt ?? ""), \(action), \(detail))
            ON CONFLICT DO NOTHING RETURNING 1
            """, logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

}

package enum DeadLetters {
    /// Every dead letter on the topic, with what was done with it (`open`, `retried`, `dropped`).
    package static func list(messages: [KafkaConsumerMessage], store: DeadLetterStore) async throws -> [DeadLetter] {
        let actions = try await store.actions()
        return messages.map { message in
            var letter = parse(message)
            letter.state = actions["\(letter.id)|\(letter.failedAt ?? "")"] ?? "open"
            return letter
        }.sorted { ($0.failedAt ?? "", $0.id) < ($1.failedAt ?? "", $1.id) }
    }

    static func parse(_ message: KafkaConsumerMessage) -> DeadLetter {
        func header(_ name: String) -> String? { message.headers.last { $0.key == name }?.stringValue }
        // The envelope says what the event is when the producer set no headers.
        let metadata = try? EventCoding.decoder().decode(EventMetadata.self, from: Data(message.value))
        return DeadLetter(
            id: "\(message.partition):\(message.offset)", partition: message.partition, offset: message.offset,
            consumer: header(EventHeader.dlqConsumer), reason: header(EventHeader.dlqReason),
            attempts: header(EventHeader.dlqAttempts).flatMap { Int($0) }, failedAt: header(EventHeader.dlqFailedAt),
            originalTopic: header(EventHeader.dlqOriginalTopic),
            originalPartition: header(EventHeader.dlqOriginalPartition).flatMap { Int($0) },
            originalOffset: header(EventHeader.dlqOriginalOffset).flatMap { Int($0) },
            eventType: header(EventHeader.eventType) ?? metadata?.type,
            eventId: header(EventHeader.eventId) ?? metadata?.eventId.uuidString.lowercased(),
            key: message.key.map { String(decoding: $0, as: UTF8.self) }, state: "open",
            payload: String(decoding: message.value, as: UTF8.self))
    }

    /// Sends dead letters back to their original topics and records them as retried. Returns the ids retried;
    /// one retried or dropped by someone else since it was listed is skipped (callers report the difference).
    package static func retry(
        _ letters: [DeadLetter], messages: [KafkaConsumerMessage], store: DeadLetterStore,
        producer: KafkaProducer
    ) async throws -> [String] {
        var retried: [String] = []
        for letter in letters {
            guard
                let message = messages.first(where: { $0.partition == letter.partition && $0.offset == letter.offset })
            else {
                throw AdminError("dead letter \(letter.id) not found on \(Topic.deadLetter)")
            }
            guard let topic = letter.originalTopic else {
                throw AdminError("dead letter \(letter.id) has no original topic header")
            }
            guard try await store.action(for: letter) == nil else { continue }  // retried or dropped meanwhile
            // Send first, then record: a crash in between leaves it open, and retrying it again only re-delivers an
            // event the idempotent consumers skip. (Recording first could lose it.)
            do {
                _ = try await producer.send(
                    KafkaOutgoingMessage(
                        topic: topic, key: message.key, value: message.value,
                        headers: message.headers.filter { !$0.key.hasPrefix("sns-dlq-") }))
            } catch {
                throw AdminError(
                    "could not send \(letter.id) back to \(topic) (\(retried.count) sent before it: \(retried.joined(separator: " "))): \(error)"
                )
            }
            _ = try await store.record(letter, action: "retried", detail: "to \(topic)")
            retried.append(letter.id)
        }
        return retried
    }

    /// Marks dead letters as dropped (they stay on the topic, hidden from `dlq list` unless `--all`).
    package static func drop(_ letters: [DeadLetter], reason: String?, store: DeadLetterStore) async throws -> [String]
    {
        var dropped: [String] = []
        for letter in letters where try await store.record(letter, action: "dropped", detail: reason) {
            dropped.append(letter.id)
        }
        return dropped
    }
}
