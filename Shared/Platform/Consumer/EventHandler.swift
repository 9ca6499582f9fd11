import Logging
import PostgresNIO

/// What a consumer does with one event. `handle` runs inside the same transaction that records the event id
/// as processed, so the effect and the "done" mark commit together or not at all. Throwing rolls both back
/// and the consumer retries (then dead-letters). Handlers ignore event types they do not care about.
package protocol EventHandler: Sendable {
    func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws

    /// Applies new events of one batch, in partition order, in the same transaction (decision 0015). The default
    /// calls `handle` for each. A handler may apply a run of similar events with one statement, provided the result
    /// is the same as applying them one by one (the consumer falls back to one by one if this throws).
    func handle(batch events: [IncomingEvent], connection: PostgresConnection, logger: Logger) async throws

    /// Whether an event of `type` can change anything here. An event whose type this says no to is not handed to
    /// the handler and not recorded as processed: the consumer commits its offset (and announces it if a writer
    /// waits for it) without opening a transaction, so a service pays nothing for the other events of a topic it
    /// reads (media and market read every like and comment of `sns.posts`). Default: every type. Implementations
    /// switch over every `EventType` without a `default`, so a new type must be decided on.
    func handles(_ type: EventType) -> Bool

    /// Whether this event, of a type `handles` said yes to, can change anything here. An event this says no to is
    /// left alone like one of a type the handler does not handle (not handed to it, not recorded; announced if a
    /// writer waits for it). Say no only for an event whose effect is nothing when applied in its partition's order
    /// — the first snapshot of an aggregate with nothing in it for this projection, such as a new post without files
    /// for media's references — so that leaving it alone is right in order and after any redelivery. Default: yes.
    func changesAnything(_ event: IncomingEvent) -> Bool

    /// The whole effect of `event` as one statement, when it is one (`OneStatementEffect`): a consumer given one event
    /// at a time then records and applies it with that single statement instead of a transaction of four round trips.
    /// It must do exactly what `handle` does for the event. Default: nil (the transaction and `handle`).
    func oneStatement(for event: IncomingEvent) throws -> (any OneStatementEffect)?
}

extension EventHandler {
    package func handles(_ type: EventType) -> Bool { true }

    package func changesAnything(_ event: IncomingEvent) -> Bool { true }

    /// Whether a consumer hands `event` to this handler and records it: a type this build knows, that the handler
    /// handles, and an event that can change anything here.
    package func applies(_ event: IncomingEvent) -> Bool {
        guard let type = event.eventType else { return false }
        return handles(type) && changesAnything(event)
    }

    package func oneStatement(for event: IncomingEvent) throws -> (any OneStatementEffect)? { nil }

    package func handle(batch events: [IncomingEvent], connection: PostgresConnection, logger: Logger) async throws {
        for event in events {
            var logger = logger
            logger[metadataKey: "event_id"] = .string(event.metadata.eventId.uuidString.lowercased())
            logger[metadataKey: "event_type"] = .string(event.type)
            try await handle(event, connection: connection, logger: logger)
        }
    }
}

/// An `EventHandler` from a closure (tests, small consumers).
package struct ClosureEventHandler: EventHandler {
    let body: @Sendable (IncomingEvent, PostgresConnection, Logger) async throws -> Void

    package init(_ body: @escaping @Sendable (IncomingEvent, PostgresConnection, Logger) async throws -> Void) {
        self.body = body
    }

    package func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws {
        try await body(event, connection, logger)
    }
}
