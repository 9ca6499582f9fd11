import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Knows, within about two probe intervals, that PostgreSQL is down, so that requests fail fast with 503 instead of
/// queueing in the pool for as long as the outage lasts (decision 0018).
///
/// It keeps one connection of its own (not the pool's: a pool request waits for a connection, which hides the
/// reason) and runs `SELECT 1` on it every `interval`. The database counts as **down** after two probes in a row
/// that failed outright: connection refused or reset, the server shutting down or starting up. A probe that is
/// merely slow changes nothing, so a busy database never turns requests away; a database that accepts connections
/// and never answers is bounded by the transaction deadline instead. One successful probe makes it up again —
/// after the service's pools were checked (a pool still waiting out its backoff is replaced, `DatabasePool`), so the
/// first request let through finds a working pool; then the tasks pausing for the outage are woken
/// (`DatabaseRecovery`, decision 0031).
package final class DatabaseWatch: Service, Sendable {
    let database: DatabaseConfiguration
    let interval: Duration
    let logger: Logger
    let pools: [DatabasePool]
    let recovery: DatabaseRecovery?
    private let state = Mutex<(down: Bool, failures: Int, probes: Int)>((false, 0, 0))
    /// `state.down`, for the check on every request (`check`) without taking the lock.
    private let down = Atomic<Bool>(false)
    private let slot = ConnectionSlot()

    package init(
        database: DatabaseConfiguration, interval: Duration, logger: Logger, pools: [DatabasePool] = [],
        recovery: DatabaseRecovery? = nil
    ) {
        self.database = database
        self.interval = interval
        self.pools = pools
        self.recovery = recovery
        var logger = logger
        logger[metadataKey: "component"] = "database-watch"
        self.logger = logger
    }

    package var isDown: Bool { down.load(ordering: .relaxed) }
    /// Probes completed so far (for tests: "after n probes").
    package var probes: Int { state.withLock { $0.probes } }

    package func run() async throws {
        // Stops at once on shutdown, whatever probe or pause is under way.
        await cancelWhenGracefulShutdown { await self.probeUntilCancelled() }
    }

    func probeUntilCancelled() async {
        while !Task.isCancelled {
            await probe()
            try? await Task.sleep(for: interval)
        }
        await slot.finish()
    }

    /// One probe: connect if needed and run `SELECT 1`, both within twice the interval. After any failure the
    /// connection is closed (one that was slow may be stuck), and the next probe opens a new one.
    func probe() async {
        let (database, logger, slot) = (self.database, self.logger, self.slot)
        do {
            try await withDeadline(interval * 2, logger: logger, quiet: true) {
                let connection: PostgresConnection
                if let current = slot.current {
                    connection = current
                } else {
                    connection = try await PostgresConnection.connect(
                        configuration: try database.connectionConfiguration(), id: 0, logger: logger)
                    await slot.keep(connection)
                }
                try await connection.query("SELECT 1", logger: logger)
            }
            if isDown { await renewStuckPools() }
            if record(.succeeded) { recovery?.announce() }
        } catch is TransactionTimeout {
            await slot.drop()
            record(.slow)  // not down: a busy or frozen database never turns requests away
        } catch {
            await slot.drop()
            record(.failedOutright, error: error)
        }
    }

    /// The watch's one connection. Every connection opened goes here at once, so none is ever dropped unclosed —
    /// also not one whose probe the deadline abandoned, nor one that opens after the watch stopped.
    final class ConnectionSlot: Sendable {
        private let state = Mutex<(connection: PostgresConnection?, finished: Bool)>((nil, false))

        var current: PostgresConnection? { state.withLock { $0.connection } }

        func keep(_ connection: PostgresConnection) async {
            let (replaced, refused) = state.withLock { state -> (PostgresConnection?, Bool) in
                if state.finished { return (nil, true) }
                defer { state.connection = connection }
                return (state.connection, false)
            }
            try? await replaced?.close()
            if refused { try? await connection.close() }
        }

        func drop() async {
            let connection = state.withLock { state in
                defer { state.connection = nil }
                return state.connection
            }
            try? await connection?.close()
        }

        func finish() async {
            state.withLock { $0.finished = true }
            await drop()
        }
    }

    enum ProbeOutcome { case succeeded, slow, failedOutright }

    /// Records a probe's outcome; returns whether the database just came back.
    @discardableResult
    func record(_ outcome: ProbeOutcome, error: (any Error)? = nil) -> Bool {
        let (changed, down) = state.withLock { state -> (Bool, Bool) in
            let before = state.down
            state.probes += 1
            switch outcome {
            case .succeeded: (state.down, state.failures) = (false, 0)
            case .slow: break
            case .failedOutright:
                state.failures += 1
                if state.failures >= 2 { state.down = true }
            }
            return (before != state.down, state.down)
        }
        self.down.store(down, ordering: .relaxed)
        if changed {
            if down {
                logger.error(
                    "database unreachable: answering requests 503 until it is back",
                    metadata: ["error": "\(error.map { String(reflecting: $0) } ?? "")"])
            } else {
                logger.notice("database reachable again")
            }
        }
        return changed && !down
    }

    /// Gives each pool a second to lend a connection, all at once; a pool that cannot is replaced.
    func renewStuckPools() async {
        await withDiscardingTaskGroup { group in
            for pool in pools { group.addTask { await pool.renewIfStuck() } }
        }
    }
}

extension DatabaseWatch {
    /// Throws 503 at once while the watch knows the database is down (operational routes excepted: `/ready` reports
    /// the outage itself). `EdgeMiddleware` runs it before every route.
    func check(_ request: Request) throws {
        if isDown && !SesacKeyCheck.operationalPaths.contains(request.uri.path) {
            throw APIError.unavailable("데이터베이스에 연결할 수 없습니다. 잠시 후 다시 시도해주세요. (database unavailable)")
        }
    }
}
