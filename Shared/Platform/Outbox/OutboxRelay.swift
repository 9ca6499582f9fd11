import Foundation
import Logging
import Metrics
import PostgresNIO
import SNSKafka
import ServiceLifecycle
import Synchronization

/// Publishes the outbox to Kafka: at-least-once, in commit order per aggregate, keyed by aggregate id.
///
/// The relay works on a PostgreSQL session of its own (decision 0034). Among several replicas, the one whose session
/// holds the schema's relay lock (`pg_try_advisory_lock`, session-level) relays; the others stand by and try the lock
/// again each time they are woken. It reads pending rows in id order, sends them all and **waits for the broker's
/// acknowledgements**; the statement that reads the next batch first marks the acknowledged one published, so a batch
/// costs one round trip to PostgreSQL and no transaction. Nothing is marked published that the broker did not
/// acknowledge: if the process, its session or the broker fails before the mark, the rows stay pending and are sent
/// again (consumers are idempotent). There is no "id > last seen" high-water mark: pending rows are found by
/// `published_at IS NULL`, so a row whose transaction commits late is never skipped. (Per aggregate, ids follow
/// commit order — `Outbox.append` takes the aggregate's lock first — so a batch read after another was acknowledged
/// holds only later events of the aggregates it shares with it.)
///
/// It wakes on `NOTIFY` from `Outbox.append`, heard on the process's `LISTEN` connection (`NotificationListener`),
/// and polls as a fallback. Its session ends with the relay (shutdown, or any failure of a batch), which releases
/// the lock to another replica.
package final class OutboxRelay: Service, Sendable {
    package enum BatchResult: Sendable, Equatable {
        /// Sent and acknowledged; marked published by the next batch's statement.
        case published(Int)
        /// Nothing pending (the previous batch, if any, is now marked published).
        case idle
        /// Another replica holds the relay lock.
        case standby
    }

    /// The relay's session: its connection, whether it holds the relay lock, and the ids the broker acknowledged that
    /// are not yet marked published. One batch runs at a time (the relay loop's, or a test's).
    struct Session {
        var connection: PostgresConnection?
        var holdsLock = false
        var acknowledged: [Int64] = []
    }

    let outbox: Outbox
    /// The relay session's connection settings: the service's database, its schema first on the search path.
    let database: PostgresConnection.Configuration
    let producer: KafkaProducer
    let logger: Logger
    let pollInterval: Duration
    let batchSize: Int
    let startGate: StartGate?
    let wakeup = WakeupSignal()
    let session = Mutex(Session())
    let publishedCounter: Counter
    /// `sns_outbox_lag_seconds{schema}`: age of the oldest unpublished row when this replica last read the
    /// outbox; 0 when nothing was pending or another replica holds the relay lock (so `max` over replicas is
    /// the schema's lag). While sends fail, each retry re-reads the rows, so the value keeps growing.
    let lagGauge: Gauge
    /// Fault injection for tests: runs after the broker acknowledged a batch, before it is marked published.
    let afterSend: (@Sendable () async throws -> Void)?

    static let relayLockClass: Int32 = 0x534E_5302

    /// - Parameter database: settings for the relay's own connection (`ServicePlatform` builds them): the
    ///   service's schema must come first on its search path.
    /// - Parameter notifications: the process's `LISTEN` connection; the relay subscribes to its outbox's channel
    ///   (nil: no wake-ups, polling only, as tests that call `publishBatch` directly need).
    package init(
        outbox: Outbox, database: PostgresConnection.Configuration, producer: KafkaProducer,
        notifications: NotificationListener?, logger: Logger, pollInterval: Duration = .seconds(1),
        batchSize: Int = 200, startGate: StartGate? = nil, afterSend: (@Sendable () async throws -> Void)? = nil
    ) {
        self.afterSend = afterSend
        self.outbox = outbox
        self.database = database
        self.producer = producer
        var logger = logger
        logger[metadataKey: "component"] = "outbox-relay"
        self.logger = logger
        self.pollInterval = pollInterval
        self.batchSize = batchSize
        self.startGate = startGate
        self.publishedCounter = Counter(
            label: "sns_outbox_published_total", dimensions: [("schema", outbox.schema.name)])
        self.lagGauge = Gauge(label: "sns_outbox_lag_seconds", dimensions: [("schema", outbox.schema.name)])
        // On LISTEN (first and after a reconnection): catch up on anything committed before it took effect.
        notifications?.subscribe(
            channel: outbox.notificationChannel, listening: { [wakeup] in wakeup.signal() },
            received: { [wakeup] _ in wakeup.signal() })
    }

    package func run() async throws {
        if let startGate {
            do { try await startGate.wait() } catch { return }
        }
        logger.info("outbox relay started", metadata: ["schema": "\(outbox.schema.name)"])
        // On SIGTERM a batch in flight is abandoned, not waited for: its rows are not marked and stay pending for the
        // next relay (the broker may still get the messages: consumers are idempotent). Waiting for acknowledgements
        // from a broker that is away would hold the process for `message.timeout.ms`. Ending the session releases
        // the relay lock.
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown { await self.relayLoop() }
        } onGracefulShutdown: {
            self.wakeup.finish()
        }
        await close(markingLastBatch: true)
        logger.info("outbox relay stopped")
    }

    func relayLoop() async {
        var failures = 0
        while !wakeup.isFinished && !Task.isCancelled {
            do {
                // After every sent batch, the next statement marks it published and reads what is pending meanwhile:
                // one round trip, whether or not it finds more. A row committed later notifies (`Outbox.append`), and
                // that signal is kept until the wait, so nothing is left pending.
                var result = try await publishBatch()
                while case .published = result, !wakeup.isFinished, !Task.isCancelled {
                    result = try await publishBatch()
                }
                failures = 0
                await wakeup.wait(timeout: pollInterval)
            } catch {
                if wakeup.isFinished || Task.isCancelled { break }  // shutting down: the batch was abandoned
                failures += 1
                let delay = Backoff.delay(attempt: failures, base: .milliseconds(200), cap: .seconds(10))
                logger.warning(
                    "outbox relay batch failed; retrying",
                    metadata: [
                        "error": "\(String(reflecting: error))", "retry_in_ms": "\(Int(delay.milliseconds))",
                    ])
                await wakeup.wait(timeout: delay)
            }
        }
    }

    /// One batch: the relay lock if this session does not hold it yet; then, in one statement, mark the previous
    /// (acknowledged) batch published and read the pending rows; send them and await the acknowledgements. Any failure
    /// ends the session (and with it the lock): its acknowledged rows stay pending and are sent again.
    package func publishBatch() async throws -> BatchResult {
        let logger = self.logger
        do {
            // The deadline exceeds the producer's message timeout (30 s), so a slow broker fails the send first.
            let result = try await withDeadline(.seconds(90), logger: logger) { try await self.batch() }
            if case .published(let count) = result {
                publishedCounter.increment(by: count)
                logger.debug("published outbox rows", metadata: ["count": "\(count)"])
            }
            return result
        } catch {
            await close()
            throw error
        }
    }

    private func batch() async throws -> BatchResult {
        let connection = try await sessionConnection()
        if !session.withLock({ $0.holdsLock }) {
            let lock = TakeRelayLock(lockClass: Self.relayLockClass, lockKey: outbox.schema.name)
            var taken = false
            for try await row in try await connection.execute(lock, logger: logger) { taken = row }
            guard taken else {
                lagGauge.record(0)
                return .standby
            }
            session.withLock { $0.holdsLock = true }
        }
        let acknowledged = session.withLock { $0.acknowledged }
        var ids: [Int64] = []
        var messages: [KafkaOutgoingMessage] = []
        var oldestAge = 0.0
        let read = MarkPublishedAndReadOutbox(published: acknowledged, limit: Int64(batchSize))
        for try await pending in try await connection.execute(read, logger: logger) {
            ids.append(pending.id)
            messages.append(
                Outbox.message(
                    topic: pending.topic, partitionKey: pending.partitionKey, payload: pending.payload,
                    headersJSON: pending.headers))
            oldestAge = max(oldestAge, pending.age)
        }
        session.withLock { $0.acknowledged = [] }
        lagGauge.record(oldestAge)
        guard !ids.isEmpty else { return .idle }
        _ = try await producer.send(messages)
        try await afterSend?()
        session.withLock { $0.acknowledged = ids }
        return .published(ids.count)
    }

    /// The session's connection, opened (with the service's search path) when there is none or PostgreSQL closed it
    /// (its lock went with it).
    private func sessionConnection() async throws -> PostgresConnection {
        if let connection = session.withLock({ $0.connection }) {
            if !connection.isClosed { return connection }
            await close()
        }
        let connection = try await PostgresConnection.connect(configuration: database, id: 0, logger: logger)
        session.withLock { $0 = Session(connection: connection) }
        return connection
    }

    /// Ends the session: its lock goes with it (another replica takes over); rows sent but not yet marked stay
    /// pending. At shutdown the last batch is first marked, if there is one and the database answers at once.
    package func close(markingLastBatch: Bool = false) async {
        let ended = session.withLock { state -> Session in
            defer { state = Session() }
            return state
        }
        guard let connection = ended.connection else { return }
        if markingLastBatch, ended.holdsLock, !ended.acknowledged.isEmpty {
            let mark = MarkPublishedAndReadOutbox(published: ended.acknowledged, limit: 0)
            _ = try? await withDeadline(.seconds(2), logger: logger, quiet: true) {
                for try await _ in try await connection.execute(mark, logger: self.logger) {}
            }
        }
        try? await connection.close()
    }
}
