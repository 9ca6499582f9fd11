import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// A PostgreSQL pool that is replaced by a fresh one when it is stuck after an outage (decision 0031).
///
/// PostgresNIO's pool waits between failed connection attempts (100 ms, growing 1.25× per attempt, up to a minute),
/// and after a minute of failures with no connection open it trips a circuit breaker that fails every lease at once
/// until its next attempt succeeds. After a long outage that attempt can be most of a minute away: measured, every
/// service answered 503 for 15 s after PostgreSQL came back from a 90 s outage. The pool has no way to try sooner, so
/// when `DatabaseWatch` sees the database back it calls `renewIfStuck`: a pool that cannot lend a connection within a
/// second is replaced by a new `PostgresClient` of the same configuration, and the old one is closed after
/// `retirementGrace` (a pool whose breaker tripped holds no connection; one still retrying may have lent connections
/// to work begun before, which the transaction deadline bounds).
///
/// Everything that runs statements holds the `DatabasePool` and asks it for `client` on each use, never keeping a
/// `PostgresClient` of its own. `DatabasePool(client)` wraps a pool that is never replaced (tools, tests).
package final class DatabasePool: Service, Sendable {
    private struct Generation: Sendable {
        let client: PostgresClient
        let retired: AsyncStream<Void>
        let retire: AsyncStream<Void>.Continuation
        /// Finishes once this generation is the current one.
        let installed: AsyncStream<Void>
        let install: AsyncStream<Void>.Continuation

        init(_ client: PostgresClient) {
            self.client = client
            (retired, retire) = AsyncStream.makeStream()
            (installed, install) = AsyncStream.makeStream()
        }
    }

    package let name: String
    private let make: (@Sendable () -> PostgresClient)?
    private let logger: Logger
    private let retirementGrace: Duration
    private let current: Mutex<Generation>
    /// Each replacement, to run and then put in place of the current one.
    private let replacements: AsyncStream<Generation>
    private let replacementsInput: AsyncStream<Generation>.Continuation
    private let renewalCount = Atomic<Int>(0)

    /// A pool that `make` builds now and again whenever it is replaced.
    package init(
        name: String, logger: Logger, retirementGrace: Duration = .seconds(30),
        make: @escaping @Sendable () -> PostgresClient
    ) {
        self.name = name
        self.make = make
        self.logger = logger
        self.retirementGrace = retirementGrace
        self.current = Mutex(Generation(make()))
        (replacements, replacementsInput) = AsyncStream.makeStream()
    }

    /// A pool that is never replaced.
    package init(_ client: PostgresClient, name: String = "postgres") {
        self.name = name
        self.make = nil
        self.logger = Logger(label: "sns.database-pool")
        self.retirementGrace = .zero
        self.current = Mutex(Generation(client))
        (replacements, replacementsInput) = AsyncStream.makeStream()
    }

    /// The pool to run statements on now. Ask again for each piece of work: after a replacement the old one closes.
    package var client: PostgresClient { current.withLock { $0.client } }

    /// How many times this pool was replaced (for tests and logs).
    package var renewals: Int { renewalCount.load(ordering: .relaxed) }

    /// Runs the current pool, and each replacement, until graceful shutdown (or cancellation).
    package func run() async {
        let first = current.withLock { $0 }
        await withDiscardingTaskGroup { group in
            group.addTask { await Self.run(first) }
            for await fresh in replacements.cancelOnGracefulShutdown() {
                group.addTask { await Self.run(fresh) }
                group.addTask { await self.install(fresh) }
            }
            replacementsInput.finish()
        }
    }

    /// Puts a running replacement in place once it has lent a connection (so work handed to it does not wait for
    /// its first connection, nor meet a pool whose `run()` has not begun), then closes the old pool after the grace.
    private func install(_ fresh: Generation) async {
        _ = try? await withDeadline(.seconds(5), logger: logger, quiet: true) {
            try await fresh.client.withConnection { _ in }
        }
        let old = current.withLock { current in
            defer { current = fresh }
            return current
        }
        renewalCount.add(1, ordering: .relaxed)
        fresh.install.finish()
        // Work begun on the old pool before the replacement finishes first (or meets its deadline).
        try? await cancelWhenGracefulShutdown { [retirementGrace] in try await Task.sleep(for: retirementGrace) }
        old.retire.finish()
    }

    /// Runs one generation's pool until it is retired (then it is closed: its `run()` is cancelled) or the service
    /// shuts down.
    private static func run(_ generation: Generation) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await generation.client.run() }
            group.addTask { for await _ in generation.retired {} }
            await group.next()
            group.cancelAll()
        }
    }

    /// Replaces the pool by a fresh one unless it lends a connection within `limit`, and returns once the fresh one
    /// is in place (or the task is cancelled). Returns whether it replaced the pool.
    @discardableResult
    package func renewIfStuck(within limit: Duration = .seconds(1)) async -> Bool {
        let client = self.client
        do {
            try await withDeadline(limit, logger: logger, quiet: true) {
                try await client.withConnection { _ in }
            }
            return false
        } catch {
            guard let fresh = renew(reason: error) else { return false }
            for await _ in fresh.installed {}
            return true
        }
    }

    /// Starts a fresh pool to take the current one's place (nothing for a pool that is never replaced).
    private func renew(reason: any Error) -> Generation? {
        guard let make else { return nil }
        logger.notice(
            "replacing a PostgreSQL pool that could not lend a connection after the database came back",
            metadata: ["pool": "\(name)", "reason": "\(String(reflecting: reason).prefix(300))"])
        let fresh = Generation(make())
        if case .terminated = replacementsInput.yield(fresh) { return nil }  // shutting down
        return fresh
    }
}

// The statements' entry points, run on the current pool.
extension DatabasePool {
    package func query(
        _ query: PostgresQuery, logger: Logger? = nil, file: String = #fileID, line: Int = #line
    ) async throws -> PostgresRowSequence {
        try await client.query(query, logger: logger, file: file, line: line)
    }

    package func withConnection<Result>(
        isolation: isolated (any Actor)? = #isolation, _ closure: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await client.withConnection(isolation: isolation, closure)
    }

    package func withTransaction<Result>(
        logger: Logger, file: String = #file, line: Int = #line, isolation: isolated (any Actor)? = #isolation,
        _ closure: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await client.withTransaction(logger: logger, file: file, line: line, isolation: isolation, closure)
    }

    /// `PostgresClient.transaction` on the current pool.
    package func transaction<Result: Sendable>(
        logger: Logger, timeout: Duration = .seconds(30), file: String = #file, line: Int = #line,
        _ closure: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await client.transaction(logger: logger, timeout: timeout, file: file, line: line, closure)
    }

    /// `PostgresClient.statement` on the current pool.
    package func statement<Result: Sendable>(
        logger: Logger, timeout: Duration = .seconds(30),
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await client.statement(logger: logger, timeout: timeout, body)
    }
}
