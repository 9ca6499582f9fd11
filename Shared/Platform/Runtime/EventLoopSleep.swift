import NIOCore
import NIOPosix

/// `Task.sleep` timed by an event loop's own timer.
///
/// On Linux `Task.sleep` goes through Dispatch: its timer thread wakes, then hands the resumed task to the executor,
/// so every timed wait costs a few thread switches even when it is cancelled long before it fires. The services'
/// tasks run on NIO's event loops (`ConcurrencyExecutor`), and those loops keep timers of their own. The timeouts of
/// every transaction, of every read-your-writes wait and of the relay's idle wait are such timers, so each write paid
/// for several of these hand-offs (bench/results/2026-11-27-one-statement-consumers.md).
package enum EventLoopSleep {
    /// Sleeps for `duration` on the current task's event loop (any loop of NIO's singleton group if the task is not
    /// on one). Throws `CancellationError` when the task is cancelled first, as `Task.sleep` does.
    package static func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, seconds > 0 || attoseconds > 0 else { return }
        // At most ~31 years: beyond, nanoseconds would overflow (a timeout that long never fires anyway).
        let nanoseconds = min(seconds, 1_000_000_000) * 1_000_000_000 + attoseconds / 1_000_000_000
        let deadline = ContinuousClock.now + duration
        let loop = MultiThreadedEventLoopGroup.currentEventLoop ?? MultiThreadedEventLoopGroup.singleton.any()
        let scheduled = loop.scheduleTask(in: .nanoseconds(nanoseconds)) {}
        do {
            try await withTaskCancellationHandler {
                try await scheduled.futureResult.get()
            } onCancel: {
                scheduled.cancel()  // fails the future with `cancelled` unless the timer already fired
            }
        } catch EventLoopError.cancelled {
            throw CancellationError()
        } catch {
            // The loop could not keep the timer (it is shutting down): a timeout must still not end early.
            try await Task.sleep(until: deadline)
        }
    }

    /// Sleeps until `deadline` (see `sleep(for:)`).
    package static func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await sleep(for: ContinuousClock.now.duration(to: deadline))
    }
}
