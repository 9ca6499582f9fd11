import Foundation
import Logging
import PostgresNIO
import SNSPlatform
import ServiceLifecycle

/// Deletes stored files that nothing references (no post, no profile) and that are older than the grace
/// period — the grace covers the time between an upload and the post that uses it.
///
/// Each batch is one transaction: claim and delete up to `batchSize` rows (`FOR UPDATE SKIP LOCKED`, so
/// replicas collect side by side without taking the same rows), unlink their files, commit. A crash before the
/// commit leaves the rows (the next pass repeats the unlinks, which tolerate missing files); a failed commit
/// after the unlinks leaves rows without files, which downloads already answer with 410 and the next pass
/// deletes. Never a file without a row to find it. A pass runs at most `maxBatches` batches, stops between
/// batches on graceful shutdown, and also removes temp files a crashed upload left behind (older than an hour).
package struct MediaGarbageCollector: Sendable {
    package struct PassResult: Sendable, Equatable {
        /// Stored files deleted (rows and files).
        package var collected: Int
        /// Leftover temp files removed.
        package var staleTemporaryFiles: Int
    }

    let catalog: MediaCatalog
    let root: MediaRoot
    let postgres: DatabasePool
    let grace: Duration
    let batchSize: Int
    let maxBatches: Int
    let logger: Logger

    /// Temp files older than this belong to no running upload (a live upload writes to its file constantly).
    static let staleTemporaryAge: TimeInterval = 3600

    package init(
        catalog: MediaCatalog, root: MediaRoot, postgres: DatabasePool, grace: Duration,
        batchSize: Int = 200, maxBatches: Int = 25, logger: Logger
    ) {
        self.catalog = catalog
        self.root = root
        self.postgres = postgres
        self.grace = grace
        self.batchSize = batchSize
        self.maxBatches = maxBatches
        var logger = logger
        logger[metadataKey: "component"] = "media-gc"
        self.logger = logger
    }

    /// Runs one pass. `grace` overrides the configured grace period (tests collect with zero).
    @discardableResult
    package func collect(grace: Duration? = nil) async throws -> PassResult {
        let grace = grace ?? self.grace
        var collected = 0
        for _ in 0..<maxBatches {
            if Task.isShuttingDownGracefully || Task.isCancelled { break }
            let count = try await collectBatch(grace: grace)
            collected += count
            if count < batchSize { break }
        }
        let stale = try await MediaDisk.removeFiles(
            in: root.temporaryDirectory, modifiedBefore: Date().addingTimeInterval(-Self.staleTemporaryAge), limit: 1000
        )
        let result = PassResult(collected: collected, staleTemporaryFiles: stale)
        logger.info(
            "media garbage collection pass",
            metadata: [
                "collected": "\(collected)", "stale_temporary_files": "\(stale)",
                "grace_seconds": "\(grace.components.seconds)",
            ])
        return result
    }

    private func collectBatch(grace: Duration) async throws -> Int {
        let catalog = self.catalog
        let root = self.root
        let batchSize = self.batchSize
        let logger = self.logger
        return try await postgres.transaction(logger: logger) { connection -> Int in
            let paths = try await catalog.deleteUnreferenced(
                olderThan: grace, limit: batchSize, on: connection, logger: logger)
            for path in paths {
                guard let mediaPath = MediaPath(path) else { continue }  // rows only ever hold paths we issued
                do {
                    try await MediaDisk.remove(root.location(of: mediaPath))
                } catch {
                    // Committing anyway orphans the file on disk, but keeps one unremovable file from
                    // blocking every later pass; the error says which file to look at.
                    logger.error(
                        "could not remove a collected file", metadata: ["path": "\(path)", "error": "\(error)"])
                }
            }
            return paths.count
        }
    }
}

/// Runs a garbage-collection pass every `interval` (after migrations), until graceful shutdown: a pass in
/// progress finishes its current batch, a pause between passes ends at once.
package struct MediaGarbageCollectionService: Service {
    let collector: MediaGarbageCollector
    let interval: Duration
    let startGate: StartGate
    let logger: Logger

    package init(collector: MediaGarbageCollector, interval: Duration, startGate: StartGate, logger: Logger) {
        self.collector = collector
        self.interval = interval
        self.startGate = startGate
        self.logger = logger
    }

    package func run() async throws {
        do { try await startGate.wait() } catch { return }
        logger.info(
            "media garbage collection started", metadata: ["interval_seconds": "\(interval.components.seconds)"])
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
            } catch {
                break
            }
            do {
                try await collector.collect()
            } catch {
                logger.error(
                    "media garbage collection pass failed", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
        logger.info("media garbage collection stopped")
    }
}
