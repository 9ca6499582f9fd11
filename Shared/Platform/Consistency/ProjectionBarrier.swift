import Foundation
import Logging
import Metrics
import Synchronization

/// Lets a writing handler wait until other services' projections have applied the events it just committed
/// (read-your-writes, decision 0013).
///
/// Consumers announce each applied *awaited* event: by datagram to the address the event names, when the barrier has
/// an `AnnouncementSocket` (decision 0050), else on the writing service's channel (`sns_applied_<service>`,
/// `ReadYourWrites.channel(writer:)`; `NOTIFY`, delivered when their transaction commits). The barrier hears them on
/// its socket and on the process's `LISTEN` connection (`NotificationListener`) and resolves the waits registered
/// with `expect` — always before the write commits, so no announcement can come before its waiter. A wait ends when
/// every expected group has announced the event, or after `timeout`: then the write is answered anyway (it is
/// committed and will reach every projection; only the acting client may see the lag) and
/// `sns_read_your_writes_timeouts_total{group}` counts which projection was late.
package final class ProjectionBarrier: Sendable {
    struct Pending {
        var groups: Set<String>
        var waiter: CheckedContinuation<Void, Never>?
        var timedOut = false
    }

    private let pending = Mutex<[UUID: Pending]>([:])
    private let listening = Mutex(false)
    /// The channel this service's writes are announced on (its name is the `producer` of the events it writes).
    let channel: String
    package let timeout: Duration
    /// Where consumers send this process's announcements (`sns-awaited-at`); nil: they `NOTIFY`.
    package let announcementAddress: String?
    let logger: Logger
    let waitTimer = Metrics.Timer(label: "sns_read_your_writes_wait_seconds")

    /// - Parameter writer: the service's name, which its outbox writes as every event's `producer`.
    /// - Parameter timeout: the longest a write's answer waits for the projections; zero disables waiting (and
    ///   listening).
    /// - Parameter notifications: the process's `LISTEN` connection, on which the barrier subscribes to its channel.
    /// - Parameter announcements: the process's socket for announcements by datagram, if it has one.
    package init(
        writer: String, timeout: Duration, notifications: NotificationListener,
        announcements: AnnouncementSocket? = nil, logger: Logger
    ) {
        self.channel = ReadYourWrites.channel(writer: writer)
        self.timeout = timeout
        self.announcementAddress = timeout > .zero ? announcements?.address : nil
        var logger = logger
        logger[metadataKey: "component"] = "projection-barrier"
        self.logger = logger
        guard timeout > .zero else { return }
        announcements?.onAnnouncement { [weak self] group, eventId in self?.applied(group: group, eventId: eventId) }
        notifications.subscribe(
            channel: channel,
            listening: { [weak self] in self?.listening.withLock { $0 = true } },
            lost: { [weak self] in self?.listening.withLock { $0 = false } },
            received: { [weak self] payload in
                if let (group, eventId) = ReadYourWrites.parse(payload) {
                    self?.applied(group: group, eventId: eventId)
                }
            })
    }

    package var isEnabled: Bool { timeout > .zero }

    /// Whether the `LISTEN` connection is up (waits started while it is down end at the timeout).
    package var isListening: Bool { listening.withLock { $0 } }

    /// A ticket for one request's writes: pass it to `Outbox.append(…, awaitedBy:)` inside the transaction, and
    /// call `wait` after the commit.
    package func ticket() -> ReadYourWritesTicket { ReadYourWritesTicket(barrier: isEnabled ? self : nil) }

    func expect(_ eventId: UUID, groups: [String]) {
        guard !groups.isEmpty else { return }
        pending.withLock { $0[eventId] = Pending(groups: Set(groups)) }
    }

    /// The groups still expected to announce `eventId` (nil when it is not awaited); for tests.
    func outstanding(_ eventId: UUID) -> Set<String>? { pending.withLock { $0[eventId]?.groups } }

    func forget(_ eventIds: [UUID]) {
        let waiters = pending.withLock { pending in eventIds.compactMap { pending.removeValue(forKey: $0)?.waiter } }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for all `eventIds` (sharing one deadline); returns the groups that had not applied them in time.
    func wait(for eventIds: [UUID]) async -> Set<String> {
        guard !eventIds.isEmpty else { return [] }
        let started = ContinuousClock.now
        let deadline = started + timeout
        var late: Set<String> = []
        for eventId in eventIds {
            late.formUnion(await wait(for: eventId, until: deadline))
        }
        waitTimer.recordNanoseconds(Int64((ContinuousClock.now - started).timeInterval * 1e9))
        for group in late {
            Counter(label: "sns_read_your_writes_timeouts_total", dimensions: [("group", group)]).increment()
        }
        return late
    }

    private func wait(for eventId: UUID, until deadline: ContinuousClock.Instant) async -> Set<String> {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do { try await EventLoopSleep.sleep(until: deadline) } catch { return }
                self.timeOut(eventId)
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = pending.withLock { pending -> Bool in
                    guard var entry = pending[eventId], !entry.groups.isEmpty, !entry.timedOut else { return true }
                    entry.waiter = continuation
                    pending[eventId] = entry
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            group.cancelAll()
        }
        return pending.withLock { $0.removeValue(forKey: eventId)?.groups ?? [] }
    }

    private func timeOut(_ eventId: UUID) {
        let waiter = pending.withLock { pending -> CheckedContinuation<Void, Never>? in
            guard var entry = pending[eventId] else { return nil }
            entry.timedOut = true
            let waiter = entry.waiter
            entry.waiter = nil
            pending[eventId] = entry
            return waiter
        }
        waiter?.resume()
    }

    /// A consumer group announced that it applied `eventId`.
    func applied(group: String, eventId: UUID) {
        let waiter = pending.withLock { pending -> CheckedContinuation<Void, Never>? in
            guard var entry = pending[eventId] else { return nil }
            entry.groups.remove(group)
            var waiter: CheckedContinuation<Void, Never>?
            if entry.groups.isEmpty {
                waiter = entry.waiter
                entry.waiter = nil
            }
            pending[eventId] = entry
            return waiter
        }
        waiter?.resume()
    }
}

/// The events one request writes and waits for. Unwaited entries are dropped when the ticket goes away (e.g. the
/// transaction rolled back). Sendable: its only state is behind a `Mutex`.
package final class ReadYourWritesTicket: Sendable {
    let barrier: ProjectionBarrier?
    private let eventIds = Mutex<[UUID]>([])
    /// The local relay to wake once the transaction committed: set when a row was written without `NOTIFY`
    /// (`Outbox.row(…, wakingAfterCommit:)`, decision 0036). Woken by `wait`, or when the ticket ends without one.
    private let relayToWake = Mutex<LocalRelay?>(nil)

    init(barrier: ProjectionBarrier?) {
        self.barrier = barrier
    }

    /// A ticket that never waits (writes from workers and consumers, where no client is waiting).
    package static var inert: ReadYourWritesTicket { ReadYourWritesTicket(barrier: nil) }

    /// Called by the outbox inside the transaction: returns the consumer groups the event is awaited from (none if
    /// it is not awaited), which its headers name so that those consumers, and only those, announce it.
    func expect(_ eventId: UUID, type: EventType) -> [String] {
        guard let barrier else { return [] }
        let groups = ReadYourWrites.groups(awaiting: type)
        guard !groups.isEmpty else { return [] }
        barrier.expect(eventId, groups: groups)
        eventIds.withLock { $0.append(eventId) }
        return groups
    }

    /// Waits (bounded) until every projection that the acting client can observe has applied this ticket's
    /// events. Call after the transaction committed.
    package func wait(logger: Logger) async {
        relayToWake.withLock { relay in
            defer { relay = nil }
            return relay
        }?.nudge()
        guard let barrier else { return }
        let ids = eventIds.withLock { ids in
            defer { ids = [] }; return ids
        }
        let late = await barrier.wait(for: ids)
        if !late.isEmpty {
            logger.warning(
                "answering before every projection applied this write (read-your-writes timeout)",
                metadata: [
                    "late_consumers": "\(late.sorted().joined(separator: ","))",
                    "timeout_ms": "\(Int(barrier.timeout.milliseconds))",
                ])
        }
    }

    /// Stops waiting for an event expected by `expect` that the transaction did not write after all (a statement that
    /// writes its event only if something changed).
    package func withdraw(_ eventId: UUID) {
        let removed = eventIds.withLock { ids -> Bool in
            guard let index = ids.firstIndex(of: eventId) else { return false }
            ids.remove(at: index)
            return true
        }
        if removed { barrier?.forget([eventId]) }
    }

    /// Called by the outbox for a row written without the relay's `NOTIFY`.
    func wakeAfterCommit(_ relay: LocalRelay) {
        relayToWake.withLock { $0 = relay }
    }

    /// The statement wrote no outbox row after all (it writes its event only if something changed): no wake-up.
    package func cancelRelayWake() {
        relayToWake.withLock { $0 = nil }
    }

    /// A ticket lives until its request's transaction has ended (the transaction's closure holds it until the
    /// commit), so a path that never calls `wait` still wakes the relay after its commit; after a rollback the
    /// wake-up finds nothing, which costs one empty read.
    deinit {
        relayToWake.withLock { $0 }?.nudge()
        let ids = eventIds.withLock { $0 }
        if !ids.isEmpty { barrier?.forget(ids) }
    }
}
