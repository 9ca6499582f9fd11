import Foundation
import NIOCore
import PostgresNIO

/// A consumer's idempotency record for a batch (or one event), with the read-your-writes announcements of the awaited
/// events in the same statement: returns the ids seen for the first time (their effects are still to apply); a
/// duplicate is announced too, as its effect is there. The announcements are delivered when the transaction commits,
/// so nothing is announced that is not applied. One prepared statement (decision 0023): was two to three queries,
/// each parsed and planned per execution. The table is unqualified: the consumer's connections find the service's
/// schema first on their search path.
///
/// The announcements come first, as an aggregate of one row that the inserted ids are joined to, so they run even
/// when every event is a duplicate (nothing inserted).
struct RecordProcessedEvents: PostgresPreparedStatement {
    typealias Row = UUID?
    static let name = "sns_processed_events_record"
    static let sql = """
        WITH inserted AS (\(insert))
        SELECT i.event_id FROM (\(announce)) AS announced LEFT JOIN inserted i ON true
        """
    /// The record ($1 … $5): returns the ids inserted, that is, seen for the first time.
    static let insert = """
        INSERT INTO processed_events (consumer, event_id, topic, kafka_partition, kafka_offset)
        SELECT $1, e.event_id, e.topic, e.kafka_partition, e.kafka_offset
        FROM unnest($2::uuid[], $3::text[], $4::int4[], $5::int8[]) AS e(event_id, topic, kafka_partition, kafka_offset)
        ON CONFLICT DO NOTHING
        RETURNING event_id
        """
    /// The announcements ($6, $7): one row, whatever their number.
    static let announce = """
        SELECT count(pg_notify(a.channel, a.payload)) AS notified FROM unnest($6::text[], $7::text[]) AS a(channel, payload)
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .text, .uuidArray, .textArray, .int4Array, .int8Array, .textArray, .textArray,
    ]

    let consumer: String
    let events: [IncomingEvent]
    let announcements: [Announcement]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(consumer)
        bindings.append(events.map(\.metadata.eventId))
        bindings.append(events.map(\.message.topic))
        bindings.append(events.map { Int32($0.message.partition) })
        bindings.append(events.map(\.message.offset))
        bindings.append(announcements.map(\.channel))
        bindings.append(announcements.map(\.payload))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> UUID? { try row.decode(UUID?.self) }
}

/// That a consumer applied an awaited event: `"<group> <event id>"`, sent by datagram to `datagramTo` (the writer's
/// `AnnouncementSocket`, decision 0050) after the commit, or else by `NOTIFY` on the writer's channel in the
/// consumer's transaction.
package struct Announcement: Sendable, Equatable {
    package var channel: String
    package var payload: String
    package var datagramTo: SocketAddress? = nil
}

extension [Announcement] {
    /// Those that go by `NOTIFY` (in the statement) when the consumer has a socket for the others (`sending`).
    func notified(sending socket: AnnouncementSocket?) -> [Announcement] {
        socket == nil ? self : filter { $0.datagramTo == nil }
    }

    /// Sends those with an address on `socket` (after the commit); the rest went by `NOTIFY`.
    func sendDatagrams(on socket: AnnouncementSocket?) {
        guard let socket else { return }
        socket.send(compactMap { announcement in announcement.datagramTo.map { ($0, announcement.payload) } })
    }
}
