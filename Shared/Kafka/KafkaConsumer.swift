import Logging
import ServiceLifecycle
import Synchronization

/// A consumer-group member whose offsets move only as the caller says: `store(_:)` marks records processed and
/// librdkafka commits what was stored every second, when partitions are revoked and when the consumer closes
/// (`enable.auto.commit=true` with `enable.auto.offset.store=false`: nothing is committed that was not stored; decision
/// 0030); `commit(_:)` commits at once.
package final class KafkaConsumer: Service, Sendable {
    package enum OffsetReset: String, Sendable {
        case earliest, latest
    }

    /// Defaults applied before `KafkaConfiguration.properties` (which may override them), in
    /// addition to `group.id` and `auto.offset.reset`.
    ///
    /// Assignment is `range`, not `cooperative-sticky`: with librdkafka 2.0.2 (Debian) a
    /// cooperative-sticky member does not send LeaveGroup on `rd_kafka_consumer_close` (seen with
    /// `debug=cgrp`: it goes straight from incremental unassign to terminate), so after every
    /// restart the group waits for the old member's session timeout before reassigning partitions.
    /// With `range`, close sends LeaveGroup and the next member is assigned at once.
    package static let defaultProperties: [(String, String)] = [
        ("auto.commit.interval.ms", "1000"),
        ("session.timeout.ms", "10000"),
        ("partition.assignment.strategy", "range"),
    ]

    /// Applied after `KafkaConfiguration.properties`, always: `store(_:)` relies on librdkafka committing only what
    /// was stored, and committing it (decision 0030). A `SNS_KAFKA_PROPERTIES` that turned auto-commit off would
    /// leave every group at its first offset.
    package static let requiredProperties: [(String, String)] = [
        ("enable.auto.commit", "true"),
        ("enable.auto.offset.store", "false"),
    ]

    /// How often a consumer waiting for records wakes without librdkafka saying that anything came
    /// (`KafkaQueueWakeups`): librdkafka expects a poll within `max.poll.interval.ms`.
    package static let defaultWakeInterval = Duration.milliseconds(100)

    private let core: KafkaConsumerCore
    /// A fatal error polled after records of a batch: thrown by the next `nextBatch`.
    private let pendingFailure = Mutex<KafkaError?>(nil)

    package convenience init(
        configuration: KafkaConfiguration,
        groupId: String,
        topics: [String],
        offsetReset: OffsetReset = .earliest,
        logger: Logger,
        wakeInterval: Duration = KafkaConsumer.defaultWakeInterval
    ) throws {
        var logger = logger
        logger[metadataKey: "kafka.client"] = "\(configuration.clientId)"
        logger[metadataKey: "kafka.group"] = "\(groupId)"
        let defaults = [("group.id", groupId), ("auto.offset.reset", offsetReset.rawValue)] + Self.defaultProperties
        let core = try KafkaConsumerCore.make(
            settings: configuration.librdkafkaSettings(defaults: defaults) + Self.requiredProperties,
            topics: topics,
            context: KafkaClientContext(logger: logger),
            label: "sns.kafka.consumer.\(configuration.clientId)",
            wakeInterval: wakeInterval
        )
        self.init(core: core)
    }

    private init(core: KafkaConsumerCore) {
        self.core = core
    }

    deinit {
        core.closeDetached()
    }

    /// The subscribed topics' records. Pull-based: every `next()` takes what librdkafka has fetched, waiting for it to
    /// say that something came when there is nothing, so nothing is buffered beyond one record. Ends after
    /// `shutdown()` or when the iterating task is cancelled. Partition EOF and transient errors are
    /// logged and skipped; fatal errors are thrown.
    package var messages: KafkaConsumerMessages {
        KafkaConsumerMessages(consumer: self)
    }

    /// Commits `message.offset + 1` for the message's partition, synchronously (off the cooperative pool).
    package func commit(_ message: KafkaConsumerMessage) async throws {
        if let failure = await core.commit(
            topic: message.topic, partition: message.partition, offset: message.offset + 1)
        {
            throw failure
        }
    }

    /// Commits, for every partition among `messages`, the offset after the last of them. With
    /// `waitForBroker: false` the commit is handed to librdkafka and this returns at once; errors then go unseen
    /// (a lost commit means a redelivery, which must be harmless to the caller).
    package func commit(_ messages: [KafkaConsumerMessage], waitForBroker: Bool) async throws {
        if let failure = await core.commit(Self.nextOffsets(after: messages), waitForBroker: waitForBroker) {
            throw failure
        }
    }

    /// Marks `messages` processed: for every partition among them, the offset after the last is stored with
    /// librdkafka before the next poll (or the close), and librdkafka commits stored offsets every
    /// `auto.commit.interval.ms` (1 s), when a rebalance revokes the partition and when the consumer closes. Costs no
    /// round trip to the broker per batch (decision 0030). A crash forgets at most the last second's progress: those
    /// records are delivered again, which must be harmless to the caller (the consumers' processed-event records).
    package func store(_ messages: [KafkaConsumerMessage]) {
        core.store(Self.nextOffsets(after: messages))
    }

    /// For every partition among `messages`, the offset after the last of them.
    static func nextOffsets(after messages: [KafkaConsumerMessage]) -> [KafkaTopicPartitionOffset] {
        var next: [String: [Int32: Int64]] = [:]
        for message in messages {
            next[message.topic, default: [:]][message.partition] = max(
                next[message.topic]?[message.partition] ?? 0, message.offset + 1)
        }
        return next.flatMap { topic, partitions in
            partitions.map { KafkaTopicPartitionOffset(topic: topic, partition: $0.key, offset: .absolute($0.value)) }
        }
    }

    /// The next records, up to `limit`, in partition order: waits for the first (until librdkafka says something
    /// came, or the periodic wake-up), then takes only what librdkafka has already fetched, so a batch never waits for
    /// more to arrive. Nil once the consumer is shutting down or the task is cancelled. Partition EOF and transient
    /// errors are logged and skipped; fatal errors are thrown (after the records polled before them were returned).
    package func nextBatch(limit: Int) async throws -> [KafkaConsumerMessage]? {
        if let failure = pendingFailure.withLock({ $0 }) { throw failure }
        while !core.isClosing, !Task.isCancelled {
            var batch: [KafkaConsumerMessage] = []
            for outcome in await core.pollBatch(limit: limit) {
                switch outcome {
                case .closed:
                    return nil
                case .idle:
                    break
                case .message(let message):
                    batch.append(message)
                case .endOfPartition(let topic, let partition, let offset):
                    core.logger.debug("Kafka consumer: end of \(topic)[\(partition)] at \(offset)")
                case .error(let error, let fatal):
                    if fatal {
                        core.logger.error("Kafka consumer failed: \(error)")
                        if batch.isEmpty { throw error }
                        pendingFailure.withLock { $0 = error }  // thrown by the next call, after this batch
                    } else {
                        core.logger.warning("Kafka consumer: \(error)")
                    }
                }
            }
            // Records polled while shutting down are dropped: uncommitted, so redelivered later.
            if core.isClosing { return nil }
            if !batch.isEmpty { return batch }
        }
        return nil
    }

    /// Waits for graceful shutdown (or cancellation), then closes the consumer.
    package func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// This member holds its group's current assignment: it joined, and no rebalance is under way since
    /// (`KafkaRebalance`).
    package var holdsAssignment: Bool { core.holdsAssignment }

    /// The partitions assigned to this member now (empty before it joined).
    package func assignment() async -> [KafkaTopicPartitionOffset] { await core.assignment() }

    /// A `nextBatch` waits for librdkafka to say that records came (for tests).
    var isWaitingForRecords: Bool { core.isWaiting }

    /// Leaves the group (committing nothing extra) and destroys the handle. Idempotent. An in-progress
    /// `next()` returns nil at once (or within one 100 ms poll, before its first poll subscribed).
    package func shutdown() async {
        await core.close()
    }

    func nextMessage() async throws -> KafkaConsumerMessage? {
        try await nextBatch(limit: 1)?.first
    }
}

/// `AsyncSequence` of `KafkaConsumerMessage`; see `KafkaConsumer.messages`.
package struct KafkaConsumerMessages: AsyncSequence, Sendable {
    package typealias Element = KafkaConsumerMessage

    let consumer: KafkaConsumer

    package struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: KafkaConsumer

        package mutating func next() async throws -> KafkaConsumerMessage? {
            try await consumer.nextMessage()
        }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: consumer)
    }
}
