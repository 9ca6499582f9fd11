internal import CRDKafka
import Synchronization

/// Wakes a consumer's poller when librdkafka puts something on its consumer queue, so that the poller can wait
/// without a thread of its own blocked in `rd_kafka_consumer_poll`.
///
/// librdkafka calls the queue's event callback (`rd_kafka_queue_cb_event_enable`) from its own threads whenever an
/// operation (a fetched message, a rebalance, an error) is put on the queue **while it was empty**. The poller drains
/// the queue without waiting (`rd_kafka_consumer_poll` with timeout 0) and only then waits here; a signal that comes
/// between its last empty poll and its wait is kept (`pending`), so no wake-up is lost. A periodic `tick` wakes a
/// waiting poller anyway (librdkafka expects a poll within `max.poll.interval.ms`, and it bounds how long a poller
/// misses anything the callback does not announce).
final class KafkaQueueWakeups: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Something was put on the queue, or the consumer is closing: wakes the waiter, or the next wait at once.
    func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Wakes a waiting poller, if any, without marking anything for the next wait.
    func tick() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns after the next `signal` (at once if one came since the last wait), `tick`, or cancellation. One
    /// waiter at a time: the consumer's poll loop.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            tick()
        }
    }

    /// A signal is kept for the next wait (for tests).
    var isPending: Bool { state.withLock { $0.pending } }
    /// A poller waits (for tests).
    var isWaiting: Bool { state.withLock { $0.waiter != nil } }

    /// Makes librdkafka call `signal` whenever it puts something on `queue` while it was empty. The caller keeps
    /// this object alive until it has called `disable(on:)` (librdkafka holds an unretained pointer).
    func enable(on queue: OpaquePointer) {
        rd_kafka_queue_cb_event_enable(queue, kafkaQueueEvent, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops the callbacks (before the queue's last reference is dropped).
    static func disable(on queue: OpaquePointer) {
        rd_kafka_queue_cb_event_enable(queue, nil, nil)
    }
}

/// librdkafka's queue event callback: runs on a librdkafka thread, with the queue's lock held, so it only wakes.
private func kafkaQueueEvent(_: OpaquePointer?, _ opaque: UnsafeMutableRawPointer?) {
    guard let opaque else { return }
    Unmanaged<KafkaQueueWakeups>.fromOpaque(opaque).takeUnretainedValue().signal()
}
