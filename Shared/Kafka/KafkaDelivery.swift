internal import CRDKafka
import Synchronization

/// Collects the delivery reports of one `send` call (one or many messages).
final class KafkaDeliveryBatch: Sendable {
    typealias Outcome = Result<KafkaDeliveryReport, KafkaError>

    private struct State {
        var outcomes: [Outcome?]
        var remaining: Int
        var waiter: CheckedContinuation<[Outcome], Never>?
        /// The sender stopped waiting (cancelled): later reports are recorded and ignored.
        var abandoned = false
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(outcomes: Array(repeating: nil, count: count), remaining: count, waiter: nil))
    }

    /// Records the outcome of message `index`; each index must be completed exactly once.
    func complete(_ index: Int, _ outcome: Outcome) {
        let ready: (CheckedContinuation<[Outcome], Never>, [Outcome])? = state.withLock { state in
            precondition(state.outcomes[index] == nil, "delivery \(index) completed twice")
            state.outcomes[index] = outcome
            state.remaining -= 1
            guard state.remaining == 0, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, Self.settled(state.outcomes))
        }
        if let (waiter, outcomes) = ready {
            waiter.resume(returning: outcomes)
        }
    }

    /// Waits until every message has an outcome. Cancelling the waiting task stops the wait at once: the
    /// messages without a report yet count as failed for the caller ("not acknowledged"), although librdkafka may
    /// still deliver them (enqueued messages cannot be recalled; at-least-once callers send them again). A relay
    /// leaving on SIGTERM while the broker is away must not wait out `message.timeout.ms`.
    func outcomes() async -> [Outcome] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: [Outcome]? = state.withLock { state in
                    if state.remaining == 0 || state.abandoned { return Self.settled(state.outcomes) }
                    state.waiter = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                }
            }
        } onCancel: {
            let ready: (CheckedContinuation<[Outcome], Never>, [Outcome])? = state.withLock { state in
                state.abandoned = true
                guard let waiter = state.waiter else { return nil }
                state.waiter = nil
                return (waiter, Self.settled(state.outcomes))
            }
            if let (waiter, outcomes) = ready {
                waiter.resume(returning: outcomes)
            }
        }
    }

    private static func settled(_ outcomes: [Outcome?]) -> [Outcome] {
        outcomes.map {
            $0 ?? .failure(KafkaError(code: KafkaError.timedOut, message: "the sender stopped waiting for the ack"))
        }
    }
}

/// The per-message opaque handed to librdkafka: retained once when the message is enqueued,
/// released exactly once, by the delivery report callback (or immediately if enqueueing fails).
final class KafkaDeliveryTicket: Sendable {
    let batch: KafkaDeliveryBatch
    let index: Int

    init(batch: KafkaDeliveryBatch, index: Int) {
        self.batch = batch
        self.index = index
    }

    /// The `dr_msg_cb`: runs on the producer's poll thread (inside rd_kafka_poll / rd_kafka_flush).
    static func install(on conf: OpaquePointer) {
        rd_kafka_conf_set_dr_msg_cb(conf) { _, message, _ in
            guard let message, let opaque = message.pointee._private else { return }
            let ticket = Unmanaged<KafkaDeliveryTicket>.fromOpaque(opaque).takeRetainedValue()
            let record = message.pointee
            let topic = record.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? "?"
            if record.err == RD_KAFKA_RESP_ERR_NO_ERROR {
                let report = KafkaDeliveryReport(topic: topic, partition: record.partition, offset: record.offset)
                ticket.batch.complete(ticket.index, .success(report))
            } else {
                ticket.batch.complete(ticket.index, .failure(KafkaError(record.err, "delivery to \(topic) failed")))
            }
        }
    }
}
