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
    private let state = Mutex<(down: Bool, failures: Int)>((false, 0))

    package init(database: DatabaseConfiguration, interval: Duration, logger: Logger) {
        self.database = database
        self.interval = interval
        var logger = logger
        logger[metadataKey: "component"] = "database-watch"
        self.logger = logger
    }

    package var isDown: Bool { state.withLock { $0.down } }

    package func run() async throws {
        // Stops at once on shutdown, whatever probe or pause is under way.
        try? await cancelWhenGracefulShutdown { await self.probeUntilCancelled() }
    }

    func probeUntilCancelled() async {
        var connection: PostgresConnection?
        while !Task.isCancelled {
            do {
                let current: PostgresConnection
                if let connection {
                    current = connection
                } else {
                    current = try await PostgresConnection.connect(
                        configuration: try database.connectionConfiguration(), id: 0, logger: logger)
                    connection = current
                }
                try await withDeadline(interval * 2, logger: logger, quiet: true) {
                    try await current.query("SELECT 1", logger: self.logger)
                }
                record(failedOutright: false, succeeded: true)
            } catch is TransactionTimeout {
                // Slow, not down: say nothing new.
            } catch {
                try? await connection?.close()
                connection = nil
                record(failedOutright: true, succeeded: false, error: error)
            }
            try? await Task.sleep(for: interval)
        }
        try? await connection?.close()
    }

    func record(failedOutright: Bool, succeeded: Bool, error: (any Error)? = nil) {
        let (changed, down) = state.withLock { state -> (Bool, Bool) in
            let before = state.down
            if succeeded {
                state = (false, 0)
            } else if failedOutright {
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
