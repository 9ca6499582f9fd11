internal import CRDKafka
import Synchronization

/// Collects the delivery reports of one `send` call (one or many messages).
final class KafkaDeliveryBatch: Sendable {
    typealias Outcome = Result<KafkaDeliveryReport, KafkaError>

    private struct State {
        var outcomes: [Outcome?]
        var remaining: Int
        var waiter: CheckedContinuation<[Outcome], Never>?
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
            return (waiter, state.outcomes.map { $0! })
        }
        if let (waiter, outcomes) = ready {
            waiter.resume(returning: outcomes)
        }
    }

    /// Waits until every message has an outcome. Not cancellable: enqueued messages cannot be
    /// recalled, and every one gets a report within `message.timeout.ms` (or at shutdown).
    func outcomes() async -> [Outcome] {
        await withCheckedContinuation { continuation in
            let ready: [Outcome]? = state.withLock { state in
                if state.remaining == 0 { return state.outcomes.map { $0! } }
                state.waiter = continuation
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
            }
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
