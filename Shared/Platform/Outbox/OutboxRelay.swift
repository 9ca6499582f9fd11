import Foundation
import Logging
import Metrics
import PostgresNIO
import SNSKafka
import ServiceLifecycle

/// Publishes the outbox to Kafka: at-least-once, in commit order per aggregate, keyed by aggregate id.
///
/// Each batch runs in one transaction that first takes a transaction-scoped advisory lock for the schema
/// (`pg_try_advisory_xact_lock`), so among several replicas exactly one relays at a time and the others
/// stand by. It reads pending rows in id order, sends them all and **waits for the broker's
/// acknowledgements**, then marks them published and commits. If the process or the broker dies before the
/// commit, the rows stay pending and are sent again (consumers are idempotent); nothing is marked
/// published that the broker did not acknowledge. There is no "id > last seen" high-water mark: pending
/// rows are found by `published_at IS NULL`, so a row whose transaction commits late is never skipped.
///
/// It wakes on `NOTIFY` from `Outbox.append`, heard on the process's `LISTEN` connection (`NotificationListener`),
/// on an in-process nudge from this process's writers while it leads (`LocalRelay`, decision 0036), and polls as a
/// fallback.
package final class OutboxRelay: Service, Sendable {
    package enum BatchResult: Sendable, Equatable {
        case published(Int)
        case idle
        /// Another replica holds the relay lock.
        case standby
    }

    let outbox: Outbox
    let client: DatabasePool
    let producer: KafkaProducer
    let logger: Logger
    let pollInterval: Duration
    /// After a batch of more than one event, how long the next events may gather before the relay reads again
    /// (`SNS_OUTBOX_GATHER_MS`, decision 0035).
    let gather: Duration
    let batchSize: Int
    let startGate: StartGate?
    let wakeup = WakeupSignal()
    let publishedCounter: Counter
    /// `sns_outbox_lag_seconds{schema}`: age of the oldest unpublished row when this replica last read the
    /// outbox; 0 when nothing was pending or another replica holds the relay lock (so `max` over replicas is
    /// the schema's lag). While sends fail, each retry re-reads the rows, so the value keeps growing.
    let lagGauge: Gauge
    /// Fault injection for tests: runs after the broker acknowledged a batch, before it is marked published.
    let afterSend: (@Sendable () async throws -> Void)?

    static let relayLockClass: Int32 = 0x534E_5302

    /// - Parameter notifications: the process's `LISTEN` connection; the relay subscribes to its outbox's channel
    ///   (nil: no wake-ups, polling only, as tests that call `publishBatch` directly need).
    package init(
        outbox: Outbox, client: DatabasePool, producer: KafkaProducer, notifications: NotificationListener?,
        logger: Logger, pollInterval: Duration = .seconds(1), gather: Duration = .zero, batchSize: Int = 200,
        startGate: StartGate? = nil,
        afterSend: (@Sendable () async throws -> Void)? = nil
    ) {
        self.afterSend = afterSend
        self.outbox = outbox
        self.client = client
        self.producer = producer
        var logger = logger
        logger[metadataKey: "component"] = "outbox-relay"
        self.logger = logger
        self.pollInterval = pollInterval
        self.gather = gather
        self.batchSize = batchSize
        self.startGate = startGate
        self.publishedCounter = Counter(
            label: "sns_outbox_published_total", dimensions: [("schema", outbox.schema.name)])
        self.lagGauge = Gauge(label: "sns_outbox_lag_seconds", dimensions: [("schema", outbox.schema.name)])
        outbox.localRelay.attach(wakeup)
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
        // On SIGTERM a batch in flight is abandoned, not waited for: its transaction rolls back and its rows stay
        // pending for the next relay (the broker may still get the messages: consumers are idempotent). Waiting
        // for acknowledgements from a broker that is away would hold the process for `message.timeout.ms`.
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown { await self.relayLoop() }
        } onGracefulShutdown: {
            self.outbox.localRelay.setLeading(false)
            self.wakeup.finish()
        }
        // Rows this process's writers committed without `NOTIFY` since the last batch: wake another replica for them.
        outbox.localRelay.setLeading(false)
        if outbox.localRelay.takeNudged() { await notifyOtherReplicasAtShutdown() }
        logger.info("outbox relay stopped")
    }

    func relayLoop() async {
        var failures = 0
        while !wakeup.isFinished && !Task.isCancelled {
            do {
                // A full batch may have left rows behind: read again at once. After a partial one, wait: a row
                // committed after this batch's read notifies (`Outbox.append`) or wakes this relay after its commit
                // (`LocalRelay`), and that signal is kept until the wait, so nothing is left pending; re-reading at
                // once cost an empty transaction (three round trips) per batch when writes trickle in.
                var result = try await publishBatch()
                while case .published(let count) = result, count >= batchSize, !wakeup.isFinished, !Task.isCancelled {
                    result = try await publishBatch()
                }
                if let pause = Self.pause(after: result, gather: gather) { try? await EventLoopSleep.sleep(for: pause) }
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

    /// How long the next events may gather before the relay reads again, after the last batch of a round (nil: wait
    /// for the next notification as usual). Only after a batch of more than one event — the outbox is busy: every
    /// batch costs the rest of the system once (a message set in the broker, a fetch and a transaction in each
    /// consumer), and without the pause the batches shrink as the load grows (decision 0035). A lone event is never
    /// held back.
    static func pause(after result: BatchResult, gather: Duration) -> Duration? {
        guard case .published(let count) = result, count > 1, gather > .zero else { return nil }
        return gather
    }

    /// One batch: lock, read pending rows, publish and await acks, mark published, commit. Tells the outbox's writers
    /// whether this relay leads (decision 0036); a relay nudged by them that finds the lock held elsewhere sends
    /// the `NOTIFY` they left out, so the replica that holds it reads their rows.
    package func publishBatch() async throws -> BatchResult {
        let nudged = outbox.localRelay.takeNudged()
        let result: BatchResult
        do {
            result = try await readAndPublish()
        } catch {
            // Until a batch succeeds, writers notify. The rows stay pending for the retry; a relay that stops before
            // it succeeds forwards the wake-up it took.
            outbox.localRelay.setLeading(false)
            if nudged { outbox.localRelay.keepNudged() }
            throw error
        }
        outbox.localRelay.setLeading(result != .standby && !wakeup.isFinished)
        if result == .standby, nudged {
            do {
                try await notifyOtherReplicas()
            } catch {
                outbox.localRelay.keepNudged()  // still owed: the retry after the back-off, or the shutdown, sends it
                throw error
            }
        }
        return result
    }

    /// The `NOTIFY` on the outbox's channel that writers left out while this relay led.
    func notifyOtherReplicas() async throws {
        _ = try await client.query("SELECT pg_notify(\(outbox.notificationChannel), '')", logger: logger)
    }

    /// Best effort: the process is stopping.
    private func notifyOtherReplicasAtShutdown() async {
        do {
            try await notifyOtherReplicas()
        } catch {
            logger.warning(
                "could not wake another relay for rows left pending",
                metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    private func readAndPublish() async throws -> BatchResult {
        let schema = outbox.schema
        let batchSize = self.batchSize
        let producer = self.producer
        let logger = self.logger
        let afterSend = self.afterSend
        let lagGauge = self.lagGauge
        // The deadline exceeds the producer's message timeout (30 s), so a slow broker fails the send first.
        let result = try await client.transaction(logger: logger, timeout: .seconds(90)) { connection -> BatchResult in
            // The relay lock and the pending rows in one statement (one round trip): the rows are read only when the
            // lock was taken (`l.locked` gates the lateral scan); a replica that is refused gets one row with no id.
            // The statement's snapshot predates its lock, so in a rare race a replica that takes over the instant
            // another committed may send that batch again: a duplicate, which consumers drop (at-least-once, as
            // after any crash between send and commit); first deliveries keep their order.
            let statement = ReadPendingOutbox(
                lockClass: Self.relayLockClass, lockKey: schema.name, limit: Int64(batchSize))
            var locked = false
            var ids: [Int64] = []
            var messages: [KafkaOutgoingMessage] = []
            var oldestAge = 0.0
            for try await (lockTaken, pending) in try await connection.execute(statement, logger: logger) {
                locked = lockTaken
                guard let pending else { continue }
                ids.append(pending.id)
                messages.append(
                    Outbox.message(
                        topic: pending.topic, partitionKey: pending.partitionKey, payload: pending.payload,
                        headersJSON: pending.headers))
                oldestAge = max(oldestAge, pending.age)
            }
            guard locked else {
                lagGauge.record(0)
                return .standby
            }
            lagGauge.record(oldestAge)
            guard !ids.isEmpty else { return .idle }
            _ = try await producer.send(messages)
            try await afterSend?()
            for try await _ in try await connection.execute(MarkOutboxPublished(ids: ids), logger: logger) {}
            return .published(ids.count)
        }
        if case .published(let count) = result {
            publishedCounter.increment(by: count)
            logger.debug("published outbox rows", metadata: ["count": "\(count)"])
        }
        return result
    }
}
