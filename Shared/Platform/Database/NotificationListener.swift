import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The process's one `LISTEN` connection: the outbox relay's wake-ups and the read-your-writes announcements arrive on
/// it, each on its own channel.
///
/// PostgreSQL wakes every backend that listens in the database on each `NOTIFY`, whatever the channel, and each
/// wake-up costs the database a signal, a context switch and a read of the notification queue. With two listening
/// connections per service, those wake-ups were ~10 % of PostgreSQL's CPU per new post (three `NOTIFY`s each:
/// the relay's and two consumers' announcements); one connection per process halves them.
///
/// The connection is the process's own, outside the pools (a pooled one would take a request's slot for the life of
/// the process). Subscribers register before `run`; each is told when its `LISTEN` is in place (first and after
/// every reconnection: time to catch up on what was committed meanwhile) and when the connection is lost.
package final class NotificationListener: Service, Sendable {
    package struct Subscription: Sendable {
        let channel: String
        let listening: @Sendable () -> Void
        let lost: @Sendable () -> Void
        let received: @Sendable (String) -> Void
    }

    private struct State {
        var subscriptions: [Subscription] = []
        var running = false
    }

    private let state = Mutex(State())
    private let database: DatabaseConfiguration
    private let logger: Logger
    private let retryBase: Duration
    /// Ends the pause between reconnection attempts as soon as the database watch sees the database back.
    private let recovery: DatabaseRecovery?

    package init(
        database: DatabaseConfiguration, logger: Logger, retryBase: Duration = .milliseconds(200),
        recovery: DatabaseRecovery? = nil
    ) {
        self.database = database
        self.recovery = recovery
        var logger = logger
        logger[metadataKey: "component"] = "notification-listener"
        self.logger = logger
        self.retryBase = retryBase
    }

    /// Listens on `channel` once `run` starts. Call before `run`.
    /// - Parameters:
    ///   - listening: `LISTEN` is in place (after start-up and after each reconnection).
    ///   - lost: the connection dropped; notifications are missed until `listening` is called again.
    ///   - received: a notification's payload.
    package func subscribe(
        channel: String, listening: @escaping @Sendable () -> Void = {}, lost: @escaping @Sendable () -> Void = {},
        received: @escaping @Sendable (String) -> Void
    ) {
        let late = state.withLock { state in
            state.subscriptions.append(
                Subscription(channel: channel, listening: listening, lost: lost, received: received))
            return state.running
        }
        precondition(!late, "NotificationListener.subscribe after run(): channel \(channel) would never be listened on")
    }

    package var channels: [String] { state.withLock { $0.subscriptions.map(\.channel) } }

    package func run() async throws {
        let none = state.withLock { state in
            state.running = true
            return state.subscriptions.isEmpty
        }
        guard !none else {
            // A service that returns ends the whole service group: idle until shutdown instead.
            try? await gracefulShutdown()
            return
        }
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown { await self.listen() }
        } onGracefulShutdown: {
        }
    }

    private func listen() async {
        let subscriptions = state.withLock { $0.subscriptions }
        var failures = 0
        while !Task.isCancelled {
            let established = Established()
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: try database.connectionConfiguration(), id: 0, logger: logger)
                defer { for subscription in subscriptions { subscription.lost() } }
                do {
                    // One task per channel on the one connection; when the connection drops, every `listen` throws.
                    try await withThrowingDiscardingTaskGroup { group in
                        for subscription in subscriptions {
                            group.addTask {
                                try await connection.listen(on: subscription.channel) { notifications in
                                    established.listening.add(1, ordering: .relaxed)
                                    subscription.listening()
                                    for try await notification in notifications {
                                        subscription.received(notification.payload)
                                    }
                                }
                            }
                        }
                    }
                    try? await connection.close()
                } catch {
                    try? await connection.close()
                    throw error
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "LISTEN connection failed; the outbox relay polls and writes answer after the read-your-writes timeout until it is back",
                    metadata: ["error": "\(error)"])
            }
            if Task.isCancelled { return }
            // Backoff starts afresh only after every channel listened (one failing channel keeps growing it).
            let listened = established.listening.load(ordering: .relaxed) == subscriptions.count
            failures = listened ? 1 : failures + 1
            await DatabaseRecovery.pause(
                Backoff.delay(attempt: failures, base: retryBase, cap: .seconds(5)), wakingOn: recovery)
        }
    }
}

/// How many of one connection's `LISTEN`s took effect.
private final class Established: Sendable {
    let listening = Atomic(0)
}
