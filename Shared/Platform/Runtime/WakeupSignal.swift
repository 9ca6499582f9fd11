import Synchronization

/// A level-triggered wake-up for one waiting task: `signal()` wakes the waiter (or the next `wait` returns at
/// once), `wait(timeout:)` also returns after the timeout, `finish()` wakes it for good.
package final class WakeupSignal: Sendable {
    struct State {
        var pending = false
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation = 0
        var signals = 0
    }

    private let state = Mutex(State())

    package init() {}

    package var isFinished: Bool { state.withLock { $0.finished } }

    /// For tests: how many times `signal()` was called, and whether a task waits with nothing pending.
    var signalCount: Int { state.withLock { $0.signals } }
    var isWaiting: Bool { state.withLock { $0.waiter != nil && !$0.pending } }

    package func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.signals += 1
            guard let waiter = state.waiter else { state.pending = true; return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    package func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns when signalled, finished, or after `timeout`, whichever comes first.
    package func wait(timeout: Duration) async {
        let generation: Int? = state.withLock { state in
            if state.pending || state.finished { state.pending = false; return nil }
            state.generation += 1
            return state.generation
        }
        guard let generation else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await EventLoopSleep.sleep(for: timeout)
                self.timeOut(generation: generation)
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || state.finished || state.generation != generation {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            group.cancelAll()
        }
    }

    private func timeOut(generation: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.generation == generation else { return nil }
            state.generation += 1  // a late-installed waiter of this generation resumes at once
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
