import Foundation
import Logging
import PostgresNIO
import SNSKafka

/// Writes events into the service's transactional outbox, inside the caller's transaction.
///
/// Ordering: before inserting, the transaction takes an advisory lock keyed by the aggregate, held until it
/// commits. Two transactions that emit events for the same aggregate therefore get their outbox ids in
/// commit order, and the relay (which publishes pending rows by id) keeps each aggregate's events in
/// commit order, while unrelated aggregates never wait for one another.
package struct Outbox: Sendable {
    package let schema: SQLIdentifier
    package let producerName: String
    /// Waits for other services' projections after a write (read-your-writes); `nil` in tools and tests that
    /// only write.
    package let barrier: ProjectionBarrier?
    /// The relay of this outbox in this process, once one is made (`OutboxRelay`): whether writes may wake it
    /// in-process instead of by `NOTIFY` (decision 0036). Shared by every copy of this value.
    package let localRelay = LocalRelay()

    /// Advisory-lock class id for per-aggregate outbox ordering ("SNS" + 1).
    static let aggregateLockClass: Int32 = 0x534E_5301

    package init(schema: SQLIdentifier, producerName: String, barrier: ProjectionBarrier? = nil) {
        self.schema = schema
        self.producerName = producerName
        self.barrier = barrier
    }

    /// A ticket for the events one request is about to write: pass it to `append(…, awaitedBy:)` and call
    /// `wait(logger:)` once the transaction committed, before answering.
    package func readYourWrites() -> ReadYourWritesTicket { barrier?.ticket() ?? .inert }

    /// The Kafka message for a stored outbox row (the relay's and `sns-admin republish`'s one conversion):
    /// key = aggregate id, value = the envelope, headers from the row's JSON object, in a stable order.
    package static func message(topic: String, partitionKey: String, payload: String, headersJSON: String)
        -> KafkaOutgoingMessage
    {
        let headerMap = (try? JSONDecoder().decode([String: String].self, from: Data(headersJSON.utf8))) ?? [:]
        let headers = headerMap.sorted { $0.key < $1.key }.map { KafkaHeader(key: $0.key, string: $0.value) }
        return KafkaOutgoingMessage(
            topic: topic, key: Array(partitionKey.utf8), value: Array(payload.utf8), headers: headers)
    }

    /// The LISTEN/NOTIFY channel the relay waits on.
    package var notificationChannel: String { "sns_outbox_\(schema.name)" }

    /// Appends one event. Must be called on a connection inside a transaction (`withTransaction`).
    @discardableResult
    /// - Parameter ticket: the request's read-your-writes ticket; its `wait` then also waits for the projections
    ///   that apply this event (`ReadYourWrites.groups(awaiting:)`).
    package func append<P: EventPayload>(
        _ payload: P, aggregateId: String, trace: TraceContext, awaitedBy ticket: ReadYourWritesTicket? = nil,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> EventEnvelope<P> {
        let (envelope, awaitedBy) = self.envelope(payload, aggregateId: aggregateId, trace: trace, awaitedBy: ticket)
        try await append(
            envelope, topic: P.eventType.topic, traceparent: trace.traceparent, awaitedBy: awaitedBy,
            wakingAfterCommit: ticket, on: connection, logger: logger)
        return envelope
    }

    /// Appends a prepared envelope (any payload) to `topic`. `awaited` marks it for consumers to announce.
    /// - Parameter ticket: see `row`.
    package func append<P>(
        _ envelope: EventEnvelope<P>, topic: String, traceparent: String? = nil, awaitedBy groups: [String] = [],
        wakingAfterCommit ticket: ReadYourWritesTicket? = nil, on connection: PostgresConnection, logger: Logger
    ) async throws {
        // One round trip: the lock first (the insert reads from it, so its id is drawn under the lock), then the
        // row, then the relay's wake-up (delivered at commit). A prepared statement (`AppendOutboxRow`).
        let statement = AppendOutboxRow(
            try row(envelope, topic: topic, traceparent: traceparent, awaitedBy: groups, wakingAfterCommit: ticket))
        for try await _ in try await connection.execute(statement, logger: logger) {}
    }

    /// The outbox row of `envelope` (payload and headers as JSON, the aggregate's lock), for a statement that
    /// appends it itself (`AppendOutboxRow`, or a service's own statement that writes its change and the row at once).
    /// - Parameter ticket: the request's ticket, whose `wait` (or end) comes after the commit. While this process's
    ///   relay leads, the row is written without the relay's `NOTIFY` (an empty `channel`) and the ticket wakes the
    ///   relay in-process instead (decision 0036); without a ticket the row always notifies.
    package func row<P>(
        _ envelope: EventEnvelope<P>, topic: String, traceparent: String? = nil, awaitedBy groups: [String] = [],
        wakingAfterCommit ticket: ReadYourWritesTicket? = nil
    ) throws -> OutboxRow {
        let payloadJSON = String(decoding: try EventCoding.encoder().encode(envelope), as: UTF8.self)
        var headers: [String: String] = [
            EventHeader.eventId: envelope.eventId.uuidString.lowercased(),
            EventHeader.eventType: envelope.type,
            EventHeader.schemaVersion: String(envelope.schemaVersion),
            EventHeader.producer: envelope.producer,
        ]
        if let requestId = envelope.requestId { headers[EventHeader.requestId] = requestId }
        if let traceparent { headers[EventHeader.traceparent] = traceparent }
        if !groups.isEmpty {
            headers[ReadYourWrites.awaitedHeader] = ReadYourWrites.awaitedHeaderValue(groups)
            if let address = barrier?.announcementAddress { headers[ReadYourWrites.awaitedAtHeader] = address }
        }
        let headersJSON = String(decoding: try JSONEncoder().encode(headers), as: UTF8.self)
        return OutboxRow(
            lockClass: Self.aggregateLockClass, lockKey: "\(schema.name):\(envelope.aggregateId)",
            eventId: envelope.eventId, topic: topic, partitionKey: envelope.aggregateId, eventType: envelope.type,
            payload: payloadJSON, headers: headersJSON, channel: channel(wakingAfterCommit: ticket))
    }

    /// The relay's `NOTIFY` channel for a row, or "" (no `NOTIFY`) when the local relay leads and `ticket` will wake it
    /// after the commit.
    func channel(wakingAfterCommit ticket: ReadYourWritesTicket?) -> String {
        guard let ticket, localRelay.isLeading else { return notificationChannel }
        ticket.wakeAfterCommit(localRelay)
        return ""
    }

    /// The envelope of `payload` for `aggregateId`, marked for the projections `ticket` awaits: what `append` writes.
    package func envelope<P: EventPayload>(
        _ payload: P, aggregateId: String, trace: TraceContext, awaitedBy ticket: ReadYourWritesTicket? = nil
    ) -> (envelope: EventEnvelope<P>, awaitedBy: [String]) {
        let envelope = EventEnvelope(
            type: P.eventType.rawValue, schemaVersion: P.schemaVersion,
            aggregateId: aggregateId, producer: producerName, requestId: trace.requestId, payload: payload
        )
        return (envelope, ticket?.expect(envelope.eventId, type: P.eventType) ?? [])
    }
}

/// One outbox row's values, in `AppendOutboxRow`'s order: the aggregate's advisory lock (class and key), the event,
/// and the relay's notification channel ("" for none: statements notify only `WHERE channel <> ''`).
package struct OutboxRow: Sendable {
    package let lockClass: Int32
    package let lockKey: String
    package let eventId: UUID
    package let topic: String
    package let partitionKey: String
    package let eventType: String
    package let payload: String
    package let headers: String
    package let channel: String

    /// Appends the nine values, in this order, to a statement's bindings.
    package func append(to bindings: inout PostgresBindings) {
        bindings.append(lockClass)
        bindings.append(lockKey)
        bindings.append(eventId)
        bindings.append(topic)
        bindings.append(partitionKey)
        bindings.append(eventType)
        bindings.append(payload)
        bindings.append(headers)
        bindings.append(channel)
    }

    /// Their types, for a statement's `bindingDataTypes`.
    package static let bindingDataTypes: [PostgresDataType] = [
        .int4, .text, .uuid, .text, .text, .text, .text, .text, .text,
    ]
}
