import Foundation
import Logging
import Metrics
import PostgresNIO
import ServiceLifecycle

/// Deletes a service's published outbox rows and processed-event records once they are older than its
/// `RetentionPolicy` (decision 0038): both tables grew with every event for ever.
///
/// Runs in every replica: a pass starts a minute after the service is ready (or after one interval, if shorter),
/// then every interval. One replica at a time prunes a schema: each statement first takes a transaction-scoped
/// advisory lock for it, and a replica that finds it taken ends its pass (the other one is at work). Each statement
/// deletes at most `batchSize` rows, and the pass rests between statements three times as long as the last one took
/// (at least `pauseBetweenBatches`), so a pass over a large backlog keeps at most a quarter of one connection busy. Pending
/// outbox rows are never touched. Processed-event records are found through their primary key — event ids are
/// time-ordered (decision 0026), so the records older than the cutoff are a prefix of each consumer's range — with
/// `processed_at` checked as well: a record is deleted only when both its event and its application are older than
/// the cutoff. Records of events with random (version 4) ids, written before decision 0026, are mostly not reached.
package final class RetentionPruner: Service, Sendable {
    package struct Pass: Sendable, Equatable {
        package var outboxRows = 0
        package var processedEvents = 0
    }

    let schema: SQLIdentifier
    let client: DatabasePool
    let policy: RetentionPolicy
    let logger: Logger
    let startGate: StartGate?
    let batchSize: Int
    let pauseBetweenBatches: Duration
    let outboxCounter: Counter
    let recordsCounter: Counter

    /// The advisory lock class of the pruning turn (key: the schema). Taken in an `InitPlan` of each statement, so a
    /// replica without the turn stops at a one-time filter instead of scanning the old rows.
    static let pruneLockClass: Int32 = 0x534E_5303

    package init(
        schema: SQLIdentifier, client: DatabasePool, policy: RetentionPolicy, logger: Logger,
        startGate: StartGate? = nil, batchSize: Int = 1_000, pauseBetweenBatches: Duration = .milliseconds(20)
    ) {
        self.schema = schema
        self.client = client
        self.policy = policy
        var logger = logger
        logger[metadataKey: "component"] = "retention"
        self.logger = logger
        self.startGate = startGate
        self.batchSize = batchSize
        self.pauseBetweenBatches = pauseBetweenBatches
        self.outboxCounter = Counter(
            label: "sns_retention_deleted_total", dimensions: [("schema", schema.name), ("table", "outbox")])
        self.recordsCounter = Counter(
            label: "sns_retention_deleted_total", dimensions: [("schema", schema.name), ("table", "processed_events")])
    }

    /// Returns only at shutdown: a service that returns early ends its whole service group (ServiceLifecycle's
    /// default), so a policy that prunes nothing waits for the shutdown like the others.
    package func run() async throws {
        guard policy.prunes else {
            try? await gracefulShutdown()
            return
        }
        if let startGate {
            do { try await startGate.wait() } catch { return }
        }
        await cancelWhenGracefulShutdown {
            var delay = min(self.policy.interval, .seconds(60))
            while !Task.isCancelled {
                do { try await EventLoopSleep.sleep(for: delay) } catch { return }
                delay = self.policy.interval
                do {
                    _ = try await self.prune()
                } catch {
                    if Task.isCancelled { return }
                    self.logger.warning(
                        "retention pass failed; next pass in one interval",
                        metadata: ["error": "\(String(reflecting: error))"])
                }
            }
        }
    }

    /// One pass: everything older than the policy's cutoffs at `now`, in batches. Logs what it deleted.
    @discardableResult
    package func prune(now: Date = Date()) async throws -> Pass {
        let started = ContinuousClock.now
        var pass = Pass()
        if let outbox = policy.outbox {
            let cutoff = now.addingTimeInterval(-outbox.timeInterval)
            pass.outboxRows = try await inBatches(table: "outbox") {
                try await self.deletePublishedOutboxRows(before: cutoff)
            }
            outboxCounter.increment(by: pass.outboxRows)
        }
        if let records = policy.processedEvents {
            let cutoff = now.addingTimeInterval(-records.timeInterval)
            for consumer in try await consumers() {
                pass.processedEvents += try await inBatches(table: "processed_events of \(consumer)") {
                    try await self.deleteProcessedEvents(of: consumer, before: cutoff)
                }
            }
            recordsCounter.increment(by: pass.processedEvents)
        }
        if pass != Pass() {
            logger.info(
                "retention pass deleted old rows",
                metadata: [
                    "schema": "\(schema.name)", "outbox_rows": "\(pass.outboxRows)",
                    "processed_events": "\(pass.processedEvents)",
                    "duration_ms": "\(Int((ContinuousClock.now - started).milliseconds))",
                ])
        }
        return pass
    }

    /// Runs `batch` until it deletes fewer than a full batch, pausing between batches; returns the total. A long run
    /// (a first pass over a large backlog) logs its progress every 100 batches.
    private func inBatches(table: String, _ batch: () async throws -> Int) async throws -> Int {
        var (total, batches) = (0, 0)
        while true {
            try Task.checkCancellation()
            let started = ContinuousClock.now
            let deleted = try await batch()
            let took = ContinuousClock.now - started
            total += deleted
            batches += 1
            if deleted < batchSize { return total }
            if batches % 100 == 0 {
                logger.info(
                    "retention pass still deleting",
                    metadata: ["schema": "\(schema.name)", "table": "\(table)", "deleted": "\(total)"])
            }
            try await EventLoopSleep.sleep(for: max(pauseBetweenBatches, took * 3))
        }
    }

    private func deletePublishedOutboxRows(before cutoff: Date) async throws -> Int {
        let s = schema
        let rows = try await client.query(
            """
            WITH turn AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(\(Self.pruneLockClass), hashtext(\(s.name))) AS mine),
            doomed AS (
                SELECT o.id FROM \(table: s, "outbox") o
                WHERE (SELECT mine FROM turn) AND o.created_at < \(cutoff) AND o.published_at IS NOT NULL
                ORDER BY o.created_at LIMIT \(batchSize)),
            gone AS (DELETE FROM \(table: s, "outbox") o USING doomed d WHERE o.id = d.id RETURNING 1)
            SELECT count(*)::int FROM gone
            """, logger: logger)
        return try await Self.count(rows)
    }

    private func deleteProcessedEvents(of consumer: String, before cutoff: Date) async throws -> Int {
        let s = schema
        let bound = UUID.timeOrderedLowerBound(at: cutoff)
        let rows = try await client.query(
            """
            WITH turn AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(\(Self.pruneLockClass), hashtext(\(s.name))) AS mine),
            doomed AS (
                SELECT p.event_id FROM \(table: s, "processed_events") p
                WHERE (SELECT mine FROM turn) AND p.consumer = \(consumer) AND p.event_id < \(bound) AND p.processed_at < \(cutoff)
                ORDER BY p.event_id LIMIT \(batchSize)),
            gone AS (
                DELETE FROM \(table: s, "processed_events") p USING doomed d
                WHERE p.consumer = \(consumer) AND p.event_id = d.event_id RETURNING 1)
            SELECT count(*)::int FROM gone
            """, logger: logger)
        return try await Self.count(rows)
    }

    /// The consumers with records in the schema, read off the primary key one distinct name at a time (a loose
    /// index scan: a handful of probes, not a scan of the table).
    private func consumers() async throws -> [String] {
        let s = schema
        let rows = try await client.query(
            """
            WITH RECURSIVE named(consumer) AS (
                SELECT min(consumer) FROM \(table: s, "processed_events")
                UNION ALL
                SELECT (SELECT min(p.consumer) FROM \(table: s, "processed_events") p WHERE p.consumer > n.consumer)
                FROM named n WHERE n.consumer IS NOT NULL)
            SELECT consumer FROM named WHERE consumer IS NOT NULL
            """, logger: logger)
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    private static func count(_ rows: PostgresRowSequence) async throws -> Int {
        var total = 0
        for try await count in rows.decode(Int.self) { total += count }
        return total
    }
}
