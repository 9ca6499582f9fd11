import Logging
import PostgresNIO

/// What a consumer does with one event. `handle` runs inside the same transaction that records the event id
/// as processed, so the effect and the "done" mark commit together or not at all. Throwing rolls both back
/// and the consumer retries (then dead-letters). Handlers ignore event types they do not care about.
public protocol EventHandler: Sendable {
    func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws
}

/// An `EventHandler` from a closure (tests, small consumers).
public struct ClosureEventHandler: EventHandler {
    let body: @Sendable (IncomingEvent, PostgresConnection, Logger) async throws -> Void

    public init(_ body: @escaping @Sendable (IncomingEvent, PostgresConnection, Logger) async throws -> Void) {
        self.body = body
    }

    public func handle(_ event: IncomingEvent, connection: PostgresConnection, logger: Logger) async throws {
        try await body(event, connection, logger)
    }
}
