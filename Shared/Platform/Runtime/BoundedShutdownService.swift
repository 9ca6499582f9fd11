import Logging
import ServiceLifecycle
import Synchronization

/// Runs a service whose `run()` may fail to return after shutdown, without letting it hold up the process.
///
/// PostgresNIO 1.33.2's pool was seen not to return from `run()` after graceful shutdown or cancellation: no
/// connection left, no timer pending, the task parked for good. Inside a service group that blocks shutdown for
/// ever: a SIGTERM that never ends the process, and in-process test applications whose teardown never finishes.
/// So the inner service runs in its own task (task-locals, the graceful-shutdown signal among them, are
/// inherited). Once shutdown is requested it gets `grace` to end; then it is cancelled and gets `grace` more;
/// then it is left behind with an error log and this service returns.
package struct BoundedShutdownService: Service {
    let inner: any Service
    let name: String
    let grace: Duration
    let logger: Logger

    package init(_ inner: any Service, name: String, grace: Duration = .seconds(5), logger: Logger) {
        self.inner = inner
        self.name = name
        self.grace = grace
        self.logger = logger
    }

    package func run() async throws {
        let outcome = Outcome()
        let inner = self.inner
        let task = Task {
            do {
                try await inner.run()
                outcome.set(nil)
            } catch {
                outcome.set(error)
            }
        }
        // Until the inner service ends on its own, or shutdown is requested, or this task is cancelled. Polled:
        // a wait on the inner task itself could not be bounded.
        while !outcome.isSet && !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if !outcome.isSet {
            if Task.isCancelled { task.cancel() }
            if await !outcome.wait(grace) {
                task.cancel()
                if await !outcome.wait(grace) {
                    logger.error(
                        "a background service did not stop after cancellation; leaving it behind",
                        metadata: ["service": "\(name)", "grace": "\(grace)"])
                    return
                }
            }
        }
        if let error = outcome.error { throw error }
    }

    /// The inner service's end: nil until it ended, then its error (or none).
    final class Outcome: Sendable {
        private let state = Mutex<(ended: Bool, error: (any Error)?)>((false, nil))

        func set(_ error: (any Error)?) { state.withLock { $0 = (true, error) } }
        var isSet: Bool { state.withLock { $0.ended } }
        var error: (any Error)? { state.withLock { $0.error } }

        /// Whether it ended within `limit` (sleeps in small steps, not cancellable on purpose: shutdown is
        /// already under way when this is called).
        func wait(_ limit: Duration) async -> Bool {
            let deadline = ContinuousClock.now.advanced(by: limit)
            while ContinuousClock.now < deadline {
                if isSet { return true }
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    Task.detached {
                        try? await Task.sleep(for: .milliseconds(20))
                        continuation.resume()
                    }
                }
            }
            return isSet
        }
    }
}
