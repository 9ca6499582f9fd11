internal import CRDKafka
import Foundation
import Logging
import Synchronization

/// The producer's handle, lifecycle state and poll thread. Outlives the public `KafkaProducer`
/// if needed: the poll thread keeps it alive until teardown has destroyed the handle.
final class KafkaProducerCore: Sendable {
    private enum Phase { case open, closing, closed }

    private struct State {
        var phase: Phase = .open
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        /// Blocking calls (metadata) using the handle outside the lock; teardown waits for them.
        var borrowers = 0
    }

    private let handle: KafkaClientHandle
    /// Must outlive the handle: librdkafka callbacks reach it through the handle's opaque.
    private let context: KafkaClientContext
    private let flushTimeoutMilliseconds: Int32
    private let state = Mutex(State())

    init(handle: KafkaClientHandle, context: KafkaClientContext, flushTimeout: Duration) {
        self.handle = handle
        self.context = context
        self.flushTimeoutMilliseconds = flushTimeout.clampedMilliseconds
    }

    var logger: Logger { context.logger }

    /// Starts the dedicated thread that serves delivery reports (`rd_kafka_poll`) until shutdown,
    /// then flushes, purges what is left and destroys the handle.
    func startPollThread(name: String) {
        let thread = Thread { [self] in
            pollUntilShutdown()
        }
        thread.name = name
        thread.start()
    }

    /// Enqueues one message. Holds the state lock so the handle cannot be torn down concurrently;
    /// `rd_kafka_produceva` never blocks (a full queue is reported as `_QUEUE_FULL`).
    func produce(_ message: KafkaOutgoingMessage, ticket: KafkaDeliveryTicket) -> KafkaError? {
        state.withLock { state -> KafkaError? in
            guard state.phase == .open else { return KafkaError.closed("producer") }
            let opaque = Unmanaged.passRetained(ticket).toOpaque()
            let failure = KafkaProduceCall.produce(handle.pointer, message, opaque: opaque)
            if failure != nil {
                // No delivery report will come for this message: drop the report's reference now.
                Unmanaged<KafkaDeliveryTicket>.fromOpaque(opaque).release()
            }
            return failure
        }
    }

    /// Runs a blocking librdkafka call on a Dispatch worker (not the cooperative pool) while keeping
    /// the handle alive; returns nil if the producer is shutting down.
    func withBlockingHandle<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) -> T) async -> T? {
        let borrowed = state.withLock { state -> Bool in
            guard state.phase == .open else { return false }
            state.borrowers += 1
            return true
        }
        guard borrowed else { return nil }
        let handle = handle
        let result = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: body(handle.pointer))
            }
        }
        state.withLock { $0.borrowers -= 1 }
        return result
    }

    /// Asks the poll thread to tear down and waits until it has.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyClosed = state.withLock { state -> Bool in
                switch state.phase {
                case .closed:
                    return true
                case .open, .closing:
                    state.phase = .closing
                    state.shutdownWaiters.append(continuation)
                    return false
                }
            }
            if alreadyClosed {
                continuation.resume()
            }
        }
    }

    /// Asks for teardown without waiting (used when the producer is deinitialised without shutdown).
    func requestShutdown() {
        state.withLock { state in
            if state.phase == .open { state.phase = .closing }
        }
    }

    private func pollUntilShutdown() {
        let rk = handle.pointer
        while state.withLock({ $0.phase == .open }) {
            _ = rd_kafka_poll(rk, 100)
        }
        // Blocking calls that borrowed the handle are bounded by their own timeouts.
        while state.withLock({ $0.borrowers > 0 }) {
            _ = rd_kafka_poll(rk, 10)
        }
        teardown(rk)
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.phase = .closed
            defer { state.shutdownWaiters = [] }
            return state.shutdownWaiters
        }
        for waiter in waiters {
            waiter.resume()
        }
    }

    /// Runs on the poll thread after the phase left `.open`, so nothing else can produce any more.
    private func teardown(_ rk: OpaquePointer) {
        if rd_kafka_flush(rk, flushTimeoutMilliseconds) != RD_KAFKA_RESP_ERR_NO_ERROR {
            logger.warning(
                "Kafka producer flush timed out; purging undelivered messages",
                metadata: ["kafka.outstanding": "\(rd_kafka_outq_len(rk))"]
            )
            _ = rd_kafka_purge(rk, Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT))
            // Serve the purged messages' delivery reports so that every awaiting send resumes.
            _ = rd_kafka_flush(rk, 1000)
        }
        rd_kafka_destroy(rk)
        logger.debug("Kafka producer closed")
    }
}
