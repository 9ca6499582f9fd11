import ServiceLifecycle
import Synchronization

/// Opens once start-up work (migrations) has finished; background workers wait on it before touching
/// tables, and readiness reports false until it is open.
package final class StartGate: Sendable {
    struct State {
        var open = false
        var nextId = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    package var isOpen: Bool { state.withLock { $0.open } }

    package func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until open; returns early (throwing `CancellationError`) when the task is cancelled or the
    /// service group shuts down gracefully.
    package func wait() async throws {
        if isOpen { return }
        let id = state.withLock { state -> Int in
            state.nextId += 1; return state.nextId
        }
        try await cancelWhenGracefulShutdown {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = self.state.withLock { state -> Bool in
                        if state.open || Task.isCancelled { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.resume()
            }
            try Task.checkCancellation()
        }
    }
}
