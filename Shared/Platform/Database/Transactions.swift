import Logging
import PostgresNIO
import Synchronization

package struct TransactionTimeout: Error, CustomStringConvertible {
    package let limit: Duration
    package var description: String { "transaction did not finish within \(limit)" }
}

extension PostgresClient {
    /// `withTransaction`, with two additions:
    /// - the closure's own error comes out unwrapped (PostgresNIO wraps it in `PostgresTransactionError`), so
    ///   handlers can throw `APIError`s and typed errors through a transaction; if the rollback itself failed,
    ///   the full `PostgresTransactionError` is thrown;
    /// - a deadline. PostgresNIO 1.33.2 was seen to hang a query (or the ROLLBACK) forever on a connection the
    ///   server had just closed, and closing the connection from our side does not release it. So after
    ///   `timeout` the caller gets `TransactionTimeout` and moves on (a consumer retries on a fresh
    ///   connection, a request answers); the stuck work is cancelled and left to the library.
    package func transaction<Result: Sendable>(
        logger: Logger,
        timeout: Duration = .seconds(30),
        file: String = #file, line: Int = #line,
        _ closure: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await withDeadline(timeout, logger: logger) {
                try await self.withTransaction(logger: logger, file: file, line: line) { connection in
                    try await closure(connection)
                }
            }
        } catch let error as PostgresTransactionError {
            if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
            throw error
        }
    }
}

extension PostgresClient {
    /// One statement (or several that need no transaction) on a pooled connection, with `transaction`'s deadline. A
    /// single statement outside `BEGIN` runs in PostgreSQL's implicit transaction: all or nothing, one round trip.
    package func statement<Result: Sendable>(
        logger: Logger, timeout: Duration = .seconds(30),
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withDeadline(timeout, logger: logger) {
            try await self.withConnection { connection in try await body(connection) }
        }
    }
}

/// Runs `work` in its own task and returns its result, or throws `TransactionTimeout` after `timeout` without
/// waiting for it any longer (logged at error level unless `quiet`). Caller cancellation is passed on to the work.
func withDeadline<Result: Sendable>(
    _ timeout: Duration, logger: Logger, quiet: Bool = false, _ work: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let race = DeadlineRace()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            race.start(
                work: Task {
                    let outcome: Swift.Result<Result, any Error>
                    do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
                    if race.settle() { continuation.resume(with: outcome) }
                },
                timer: Task {
                    do { try await EventLoopSleep.sleep(for: timeout) } catch { return }
                    if race.settle() {
                        if !quiet {
                            logger.error(
                                "transaction exceeded its time limit; abandoning it", metadata: ["limit": "\(timeout)"])
                        }
                        continuation.resume(throwing: TransactionTimeout(limit: timeout))
                    }
                })
        }
    } onCancel: {
        race.cancelWork()
    }
}

/// Who finished first, the work or the timer; the loser is cancelled.
final class DeadlineRace: Sendable {
    private let state = Mutex<(settled: Bool, work: Task<Void, Never>?, timer: Task<Void, Never>?)>((false, nil, nil))

    func start(work: Task<Void, Never>, timer: Task<Void, Never>) {
        let settled = state.withLock { state -> Bool in
            state.work = work
            state.timer = timer
            return state.settled
        }
        if settled { work.cancel(); timer.cancel() }
    }

    /// True for the first caller only; cancels both tasks (the winner is finishing anyway).
    func settle() -> Bool {
        let (first, work, timer) = state.withLock { state in
            defer { state.settled = true }
            return (!state.settled, state.work, state.timer)
        }
        if first { work?.cancel(); timer?.cancel() }
        return first
    }

    func cancelWork() {
        state.withLock { $0.work }?.cancel()
    }
}
