import Synchronization

/// Tells the tasks that wait out a database outage that it is over (decision 0031).
///
/// The `LISTEN` connection and the consumers retry with a growing pause (up to 5 s and 30 s): after a long outage
/// they would sleep on for that long although the database was back. `DatabaseWatch` calls `announce()` when it
/// sees the database reachable again (after its pools were checked), and every `pause` under way ends at once.
package final class DatabaseRecovery: Sendable {
    private struct State {
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var announcements = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// How many times the database was announced back (for tests).
    package var announcements: Int { state.withLock { $0.announcements } }
    /// How many pauses are under way (for tests).
    package var pausing: Int { state.withLock { $0.waiters.count } }

    /// Ends every `pause` under way.
    package func announce() {
        let waiters = state.withLock { state in
            state.announcements += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Sleeps `delay`, or less when the database is announced back meanwhile or the task is cancelled.
    package func pause(_ delay: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: delay) }
            group.addTask { await self.waitForAnnouncement() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Sleeps `delay`, ending early when `recovery` (if any) announces the database back; never throws (a
    /// cancelled sleep simply ends).
    package static func pause(_ delay: Duration, wakingOn recovery: DatabaseRecovery?) async {
        if let recovery { await recovery.pause(delay) } else { try? await Task.sleep(for: delay) }
    }

    private func waitForAnnouncement() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    // Cancelled before registering (the handler found nothing to remove): do not wait.
                    if Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
