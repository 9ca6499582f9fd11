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
/// and never answers is bounded by the transaction deadline instead. One successful probe makes it up again.
package final class DatabaseWatch: Service, Sendable {
    let database: DatabaseConfiguration
    let interval: Duration
    let logger: Logger
    private let state = Mutex<(down: Bool, failures: Int, probes: Int)>((false, 0, 0))

    package init(database: DatabaseConfiguration, interval: Duration, logger: Logger) {
        self.database = database
        self.interval = interval
        var logger = logger
        logger[metadataKey: "component"] = "database-watch"
        self.logger = logger
    }

    package var isDown: Bool { state.withLock { $0.down } }
    /// Probes completed so far (for tests: "after n probes").
    package var probes: Int { state.withLock { $0.probes } }

    package func run() async throws {
        // Stops at once on shutdown, whatever probe or pause is under way.
        try? await cancelWhenGracefulShutdown { await self.probeUntilCancelled() }
    }

    func probeUntilCancelled() async {
        var connection: PostgresConnection?
        while !Task.isCancelled {
            connection = await probe(on: connection)
            try? await Task.sleep(for: interval)
        }
        try? await connection?.close()
    }

    /// One probe: connect if needed and run `SELECT 1`, both within twice the interval. Returns the connection to
    /// reuse (nil after any failure: a connection that was slow may be stuck, so the next probe opens a new one).
    func probe(on existing: PostgresConnection?) async -> PostgresConnection? {
        let (database, logger) = (self.database, self.logger)
        do {
            let connection = try await withDeadline(interval * 2, logger: logger, quiet: true) {
                let connection: PostgresConnection
                if let existing {
                    connection = existing
                } else {
                    connection = try await PostgresConnection.connect(
                        configuration: try database.connectionConfiguration(), id: 0, logger: logger)
                    // Abandoned by the deadline meanwhile: nobody else will close it.
                    if Task.isCancelled {
                        try? await connection.close()
                        throw CancellationError()
                    }
                }
                try await connection.query("SELECT 1", logger: logger)
                return connection
            }
            record(.succeeded)
            return connection
        } catch is TransactionTimeout {
            try? await existing?.close()
            record(.slow)  // not down: a busy or frozen database never turns requests away
            return nil
        } catch {
            try? await existing?.close()
            record(.failedOutright, error: error)
            return nil
        }
    }

    enum ProbeOutcome { case succeeded, slow, failedOutright }

    func record(_ outcome: ProbeOutcome, error: (any Error)? = nil) {
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
        if changed {
            if down {
                logger.error(
                    "database unreachable: answering requests 503 until it is back",
                    metadata: ["error": "\(error.map { String(reflecting: $0) } ?? "")"])
            } else {
                logger.notice("database reachable again")
            }
        }
    }
}

/// Answers 503 at once while `DatabaseWatch` knows the database is down (operational routes excepted: `/ready`
/// reports the outage itself).
package struct DatabaseWatchMiddleware: RouterMiddleware {
    package typealias Context = APIRequestContext
    let watch: DatabaseWatch

    package init(watch: DatabaseWatch) { self.watch = watch }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if watch.isDown && !SesacKeyMiddleware.operationalPaths.contains(request.uri.path) {
            throw APIError.unavailable("데이터베이스에 연결할 수 없습니다. 잠시 후 다시 시도해주세요. (database unavailable)")
        }
        return try await next(request, context)
    }
}
