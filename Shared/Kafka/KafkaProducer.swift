internal import CRDKafka
import Logging
import ServiceLifecycle

/// An idempotent producer (`enable.idempotence=true`, `acks=all`): per-partition order is kept
/// across retries. Delivery reports are served by a dedicated background thread started in `init`,
/// so `send` works whether or not `run()` is running.
package final class KafkaProducer: Service, Sendable {
    /// Defaults applied before `KafkaConfiguration.properties` (which may override them).
    package static let defaultProperties: [(String, String)] = [
        ("enable.idempotence", "true"),
        ("acks", "all"),
        ("linger.ms", "1"),
        ("message.timeout.ms", "30000"),
    ]

    private let core: KafkaProducerCore

    package convenience init(configuration: KafkaConfiguration, logger: Logger) throws {
        var logger = logger
        logger[metadataKey: "kafka.client"] = "\(configuration.clientId)"
        let context = KafkaClientContext(logger: logger)
        let handle = try KafkaClientHandle.make(
            type: RD_KAFKA_PRODUCER,
            settings: configuration.librdkafkaSettings(defaults: Self.defaultProperties),
            context: context,
            configure: KafkaDeliveryTicket.install(on:)
        )
        let core = KafkaProducerCore(handle: handle, context: context, flushTimeout: configuration.shutdownFlushTimeout)
        self.init(core: core, clientId: configuration.clientId)
    }

    private init(core: KafkaProducerCore, clientId: String) {
        self.core = core
        core.startPollThread(name: "kafka-producer-\(clientId)")
    }

    deinit {
        core.requestShutdown()
    }

    /// Enqueues `message` and waits until the broker acknowledged it.
    /// Throws `KafkaError` if it cannot be enqueued or is not delivered within `message.timeout.ms`.
    package func send(_ message: KafkaOutgoingMessage) async throws -> KafkaDeliveryReport {
        try await send([message])[0]
    }

    /// Enqueues all messages in order, then waits for every delivery report. Throws the first failure
    /// (in message order) once all reports arrived. If one message cannot be enqueued, the messages
    /// after it are not enqueued (to keep per-partition order) and fail too.
    /// Cancelling the calling task does not recall enqueued messages: it stops enqueueing, and stops waiting for
    /// the reports (the unacknowledged messages fail for the caller).
    package func send(_ messages: [KafkaOutgoingMessage]) async throws -> [KafkaDeliveryReport] {
        guard !messages.isEmpty else { return [] }
        let batch = KafkaDeliveryBatch(count: messages.count)
        var enqueueFailure: KafkaError?
        for (index, message) in messages.enumerated() {
            if let earlier = enqueueFailure {
                batch.complete(
                    index,
                    .failure(
                        KafkaError(
                            code: earlier.code,
                            message: "not sent: an earlier message of the batch failed (\(earlier.message))"
                        )))
                continue
            }
            do {
                try await enqueue(message, ticket: KafkaDeliveryTicket(batch: batch, index: index))
            } catch {
                enqueueFailure = error
                batch.complete(index, .failure(error))
            }
        }
        var reports: [KafkaDeliveryReport] = []
        reports.reserveCapacity(messages.count)
        for outcome in await batch.outcomes() {
            reports.append(try outcome.get())
        }
        return reports
    }

    /// Retries while librdkafka's local queue is full (the poll thread drains it).
    private func enqueue(_ message: KafkaOutgoingMessage, ticket: KafkaDeliveryTicket) async throws(KafkaError) {
        while true {
            guard let failure = core.produce(message, ticket: ticket) else { return }
            guard failure.code == KafkaError.queueFull, !Task.isCancelled else { throw failure }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// True if a broker answered a metadata request within `timeout` (for readiness probes).
    /// Runs off the cooperative pool; false once the producer is shut down.
    package func isBrokerReachable(timeout: Duration) async -> Bool {
        let milliseconds = timeout.clampedMilliseconds
        let reachable = await core.withBlockingHandle { rk -> Bool in
            var metadata: UnsafePointer<rd_kafka_metadata>?
            let err = rd_kafka_metadata(rk, 0, nil, &metadata, milliseconds)
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else { return false }
            defer { rd_kafka_metadata_destroy(metadata) }
            return metadata.pointee.broker_cnt > 0
        }
        return reachable ?? false
    }

    /// Waits for graceful shutdown (or cancellation), then flushes outstanding messages
    /// (bounded by `KafkaConfiguration.shutdownFlushTimeout`) and destroys the handle.
    package func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// Flushes (bounded), purges what is left (those sends fail), destroys the handle. Idempotent;
    /// concurrent callers all return once teardown is complete. Later sends throw `KafkaError`.
    package func shutdown() async {
        await core.shutdown()
    }
}
