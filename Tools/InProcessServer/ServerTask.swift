import Logging
import Synchronization

/// Ends the task running an in-process server (the test servers, tests' own receivers) without letting it hold up
/// the caller: after graceful shutdown was triggered, the task gets `limit` to end, then it is cancelled and gets
/// `limit` more, then it is left behind with a warning.
package enum ServerTask {
    package static func end(_ task: Task<Void, any Error>, within limit: Duration, logger: Logger) async {
        // In a task of its own: the caller may be cancelled (a cancelled or timed-out test), and then every
        // `Task.sleep` below would return at once and the wait would spin a thread until the limit.
        await Task { await endUncancelled(task, within: limit, logger: logger) }.value
    }

    private static func endUncancelled(_ task: Task<Void, any Error>, within limit: Duration, logger: Logger) async {
        let finished = Finished()
        Task {
            _ = try? await task.value; finished.set()
        }
        if await finished.wait(limit) { return }
        task.cancel()
        if await finished.wait(limit) { return }
        logger.warning("the in-process server did not stop after cancellation; left behind")
    }

    /// Set once the task ended; polled (a wait on the task itself could not be bounded).
    final class Finished: Sendable {
        private let done = Mutex(false)
        func set() { done.withLock { $0 = true } }
        func wait(_ limit: Duration) async -> Bool {
            let deadline = ContinuousClock.now.advanced(by: limit)
            while ContinuousClock.now < deadline {
                if done.withLock({ $0 }) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return done.withLock { $0 }
        }
    }
}
