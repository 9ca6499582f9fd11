import Synchronization

/// The link between an outbox's writers and the relay running in the same process (decision 0036): whether that
/// relay leads (its last batch took the relay lock), and how to wake it without PostgreSQL.
///
/// A `NOTIFY` wakes every backend that listens in the database, one per process of the stack (their wake-ups were
/// ~11 % of PostgreSQL's CPU per new post, three `NOTIFY`s each), costs the committing backend a signal to each, and
/// makes its commit take a database-wide lock, so such commits run one at a time. When the process's own relay
/// leads, a write that will be followed by a post-commit step (a request's `ReadYourWritesTicket`) leaves the
/// `NOTIFY` out and wakes the relay in-process after its commit instead.
///
/// Leading is a hint, not a lease: the lock is taken per batch, so another replica may hold it by the time the
/// nudged relay reads. A relay that was nudged and finds the lock taken therefore sends the `NOTIFY` the writer left
/// out (`OutboxRelay.publishBatch`), which wakes whichever replica holds it; nothing is left pending.
package final class LocalRelay: Sendable {
    private struct State {
        var wakeup: WakeupSignal?
        /// Nudged since the relay last started a batch.
        var nudged = false
    }

    private let state = Mutex(State())
    private let leading = Atomic(false)

    package init() {}

    /// Whether writes may leave their `NOTIFY` out: a relay runs here, and its last batch took the relay lock.
    package var isLeading: Bool { leading.load(ordering: .relaxed) }

    /// Called by the relay after each batch (and with `false` when it fails or stops).
    func setLeading(_ value: Bool) { leading.store(value, ordering: .relaxed) }

    /// Called by the relay of this outbox when it is made.
    func attach(_ wakeup: WakeupSignal) { state.withLock { $0.wakeup = wakeup } }

    /// Wakes the relay: a row written without `NOTIFY` has been committed.
    package func nudge() {
        let wakeup = state.withLock { state -> WakeupSignal? in
            state.nudged = true
            return state.wakeup
        }
        wakeup?.signal()
    }

    /// Called by the relay when a batch that took a wake-up failed: the wake-up is still owed (without waking the
    /// relay again, which is waiting out its back-off).
    func keepNudged() { state.withLock { $0.nudged = true } }

    /// Called by the relay as a batch starts (its read will see every row committed before): whether it was nudged
    /// since the last batch started.
    func takeNudged() -> Bool {
        state.withLock { state in
            defer { state.nudged = false }
            return state.nudged
        }
    }
}
