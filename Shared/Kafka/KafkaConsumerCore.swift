internal import CRDKafka
import Dispatch
import Logging
import Synchronization

/// Holds the consumer's handle, its consumer queue and the queue's tick timer.
///
/// `@unchecked Sendable` is safe because every field is read or written only from blocks running on the owning
/// `KafkaConsumerCore.queue`, a serial DispatchQueue, with one exception that cannot overlap a write: `handle` is also
/// read by `KafkaConsumerCore.pollNow` on the caller's thread while it holds `pollLock`, and the one write after
/// `init` (`closeOnQueue` setting it to nil) holds `pollLock` too.
private final class KafkaConsumerSlot: @unchecked Sendable {
    var handle: KafkaClientHandle?
    /// Topics to subscribe to on the first poll (see `make(settings:topics:…)`); nil once subscribed.
    var pendingTopics: [String]?
    /// Our reference to the consumer queue whose events wake the poller (`KafkaQueueWakeups`); released before the
    /// handle is destroyed (a reference left makes `rd_kafka_destroy` hang).
    var consumerQueue: OpaquePointer?
    var tickTimer: (any DispatchSourceTimer)?

    init(handle: KafkaClientHandle, pendingTopics: [String]? = nil) {
        self.handle = handle
        self.pendingTopics = pendingTopics
    }
}

/// The consumer's (or partition reader's) handle, serial queue and lifecycle. Every librdkafka call that may block
/// (subscribe, a synchronous commit, close, destroy) runs on `queue`, never on the Swift cooperative pool. Polls
/// do not block: the poller takes what librdkafka has already fetched (timeout 0) on its own thread and, when there is
/// nothing, waits for librdkafka to say that something came (`KafkaQueueWakeups`). So a fetched batch reaches the
/// consumer's task in one wake-up of its thread, where a poll blocked on `queue` took two (the queue's thread, then
/// the task's), on every batch of every consumer (decision 0039).
final class KafkaConsumerCore: Sendable {
    enum PollOutcome: Sendable {
        case closed
        case idle
        case message(KafkaConsumerMessage)
        /// Reached the end of a partition (`enable.partition.eof=true` only); `offset` is the next
        /// offset, i.e. the high watermark the fetch saw.
        case endOfPartition(topic: String, partition: Int32, offset: Int64)
        case error(KafkaError, fatal: Bool)
    }

    /// Upper bound for one poll on `queue`.
    static let pollTimeoutMilliseconds: Int32 = 100

    private let queue: DispatchQueue
    private let slot: KafkaConsumerSlot
    /// Must outlive the handle: librdkafka callbacks reach it through the handle's opaque.
    private let context: KafkaClientContext
    private let closing = Mutex(false)
    /// Offsets handed to `store` and not yet given to librdkafka: stored on the queue before the next poll (or the
    /// close), so that storing costs the caller no hop of its own.
    private let pendingStores = Mutex<[KafkaTopicPartitionOffset]>([])
    /// Signalled by librdkafka when its consumer queue gets something; nil if the handle has no consumer queue, in
    /// which case polls block on `queue` as before.
    private let wakeups: KafkaQueueWakeups?
    /// Held by a poll on the caller's thread and by the close while it takes the handle away (see the slot).
    private let pollLock = Mutex(())
    /// True once the first poll subscribed (or at once for an assigned reader): from then on polls need no `queue`.
    private let subscribed: Atomic<Bool>

    private init(
        queue: DispatchQueue, handle: KafkaClientHandle, context: KafkaClientContext, pendingTopics: [String]? = nil,
        wakeInterval: Duration
    ) {
        self.queue = queue
        self.slot = KafkaConsumerSlot(handle: handle, pendingTopics: pendingTopics)
        self.context = context
        self.subscribed = Atomic(pendingTopics == nil)
        // The consumer queue, where `rd_kafka_poll_set_consumer` sends the main queue's events too.
        if let consumerQueue = rd_kafka_queue_get_consumer(handle.pointer) {
            let wakeups = KafkaQueueWakeups()
            wakeups.enable(on: consumerQueue)
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let interval = DispatchTimeInterval.milliseconds(Int(wakeInterval / .milliseconds(1)))
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { wakeups.tick() }
            timer.resume()
            slot.consumerQueue = consumerQueue
            slot.tickTimer = timer
            self.wakeups = wakeups
        } else {
            self.wakeups = nil
        }
    }

    var logger: Logger { context.logger }

    /// True once shutdown was requested; `next()` then ends the sequence without polling again.
    var isClosing: Bool { closing.withLock { $0 } }

    /// Creates the handle; it subscribes (joins the group) on its first poll, not here. A consumer that is made but
    /// never run — an in-process service in a test that leaves the projection to the stack's process, a service
    /// still migrating its schema — must not join: the group would hand it partitions that nobody reads until it
    /// leaves, and every member would stall in the rebalances of its joining and leaving. Plain throwing factory
    /// (see the release-mode compiler note in KafkaClientHandle).
    static func make(
        settings: [(String, String)], topics: [String], context: KafkaClientContext, label: String,
        wakeInterval: Duration = KafkaConsumer.defaultWakeInterval
    ) throws(KafkaError) -> KafkaConsumerCore {
        let handle = try KafkaClientHandle.make(
            type: RD_KAFKA_CONSUMER, settings: settings, context: context, configure: KafkaRebalance.install(on:))
        // Serve the main queue (error callbacks, rebalances) from rd_kafka_consumer_poll.
        _ = rd_kafka_poll_set_consumer(handle.pointer)
        return KafkaConsumerCore(
            queue: DispatchQueue(label: label), handle: handle, context: context, pendingTopics: topics,
            wakeInterval: wakeInterval)
    }

    /// Subscribes if the first poll has not done so yet (on the queue).
    private func subscribeIfPending(_ rk: OpaquePointer) -> KafkaError? {
        guard let topics = slot.pendingTopics else { return nil }
        slot.pendingTopics = nil
        let list = rd_kafka_topic_partition_list_new(Int32(topics.count))
        for topic in topics {
            _ = rd_kafka_topic_partition_list_add(list, topic, RD_KAFKA_PARTITION_UA)
        }
        let err = rd_kafka_subscribe(rk, list)
        rd_kafka_topic_partition_list_destroy(list)
        return err == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : KafkaError(err, "subscribe to \(topics)")
    }

    /// Creates the handle and assigns explicit partitions and start offsets (`rd_kafka_assign`): no
    /// group membership, no rebalances. Plain throwing factory, as above.
    static func make(
        settings: [(String, String)], assignment: [KafkaTopicPartitionOffset], context: KafkaClientContext,
        label: String
    ) throws(KafkaError) -> KafkaConsumerCore {
        let handle = try KafkaClientHandle.make(type: RD_KAFKA_CONSUMER, settings: settings, context: context)
        let rk = handle.pointer
        _ = rd_kafka_poll_set_consumer(rk)
        let list = rd_kafka_topic_partition_list_new(Int32(assignment.count))
        for entry in assignment {
            rd_kafka_topic_partition_list_add(list, entry.topic, entry.partition)!.pointee.offset =
                entry.offset.librdkafkaValue
        }
        let err = rd_kafka_assign(rk, list)
        rd_kafka_topic_partition_list_destroy(list)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            rd_kafka_destroy(rk)
            throw KafkaError(err, "assign \(assignment.map(\.description))")
        }
        return KafkaConsumerCore(
            queue: DispatchQueue(label: label), handle: handle, context: context,
            wakeInterval: KafkaConsumer.defaultWakeInterval)
    }

    /// Runs `body` on the serial queue and returns its result.
    private func onQueue<T: Sendable>(_ body: @escaping @Sendable (KafkaConsumerCore) -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: body(self))
            }
        }
    }

    /// One `rd_kafka_consumer_poll` with a short timeout (at most `pollTimeoutMilliseconds`).
    func poll(timeoutMilliseconds: Int32 = KafkaConsumerCore.pollTimeoutMilliseconds) async -> PollOutcome {
        let milliseconds = min(max(timeoutMilliseconds, 0), Self.pollTimeoutMilliseconds)
        return await onQueue { core in
            core.storePending()
            return core.pollOnQueue(timeoutMilliseconds: milliseconds)
        }
    }

    /// Up to `limit` outcomes, waiting up to about the poll timeout for the first: what librdkafka has already
    /// fetched, taken on the caller's thread; if there is nothing, after librdkafka says something came (or the
    /// poll timeout passed: then possibly none). Stops after the first outcome that is not a message.
    func pollBatch(limit: Int) async -> [PollOutcome] {
        guard let wakeups, subscribed.load(ordering: .acquiring) else { return await pollBatchOnQueue(limit: limit) }
        let outcomes = pollNow(limit: limit)
        if !outcomes.isEmpty { return outcomes }
        await wakeups.wait()
        return pollNow(limit: limit)
    }

    /// A group member holds the group's current assignment (`KafkaRebalance`); false before it joined, during a
    /// rebalance and after it left.
    var holdsAssignment: Bool { context.holdsAssignment.load(ordering: .acquiring) }

    /// A poller waits for librdkafka's queue event (for tests).
    var isWaiting: Bool { wakeups?.isWaiting ?? false }

    /// Up to `limit` outcomes without waiting, on the caller's thread (librdkafka's poll is thread-safe; `pollLock`
    /// keeps the handle from being destroyed meanwhile).
    private func pollNow(limit: Int) -> [PollOutcome] {
        pollLock.withLock { _ -> [PollOutcome] in
            guard let rk = slot.handle?.pointer, !isClosing else { return [.closed] }
            storePending()
            var outcomes: [PollOutcome] = []
            while outcomes.count < max(limit, 1) {
                let outcome = Self.poll(rk, timeoutMilliseconds: 0)
                switch outcome {
                case .message:
                    outcomes.append(outcome)
                case .idle:
                    return outcomes
                default:
                    outcomes.append(outcome)
                    return outcomes
                }
            }
            return outcomes
        }
    }

    /// `pollBatch` for a handle without a consumer queue, and until the first poll subscribed: in one hop to the
    /// queue, the first poll waits up to the poll timeout, the rest only take what librdkafka has already fetched.
    private func pollBatchOnQueue(limit: Int) async -> [PollOutcome] {
        await onQueue { core in
            core.storePending()
            var outcomes: [PollOutcome] = []
            var timeout = Self.pollTimeoutMilliseconds
            polling: while outcomes.count < max(limit, 1) {
                let outcome = core.pollOnQueue(timeoutMilliseconds: timeout)
                switch outcome {
                case .message:
                    outcomes.append(outcome)
                    timeout = 0
                case .idle where !outcomes.isEmpty:
                    break polling  // nothing more fetched yet: deliver what we have
                default:
                    outcomes.append(outcome)
                    break polling
                }
            }
            return outcomes
        }
    }

    private func pollOnQueue(timeoutMilliseconds: Int32) -> PollOutcome {
        guard let rk = slot.handle?.pointer, !isClosing else { return .closed }
        if let failure = subscribeIfPending(rk) { return .error(failure, fatal: true) }
        subscribed.store(true, ordering: .releasing)
        return Self.poll(rk, timeoutMilliseconds: timeoutMilliseconds)
    }

    private static func poll(_ rk: OpaquePointer, timeoutMilliseconds: Int32) -> PollOutcome {
        guard let record = rd_kafka_consumer_poll(rk, timeoutMilliseconds) else { return .idle }
        defer { rd_kafka_message_destroy(record) }
        let err = record.pointee.err
        if err == RD_KAFKA_RESP_ERR__PARTITION_EOF {
            let topic = record.pointee.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
            return .endOfPartition(topic: topic, partition: record.pointee.partition, offset: record.pointee.offset)
        }
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            return .error(describe(err, rk: rk, record: record), fatal: isFatal(err))
        }
        return .message(KafkaConsumerMessage(copying: record))
    }

    private static func describe(
        _ err: rd_kafka_resp_err_t, rk: OpaquePointer, record: UnsafeMutablePointer<rd_kafka_message_t>
    ) -> KafkaError {
        if err == RD_KAFKA_RESP_ERR__FATAL {
            var buffer = [CChar](repeating: 0, count: 512)
            let original = rd_kafka_fatal_error(rk, &buffer, buffer.count)
            return KafkaError(code: original.rawValue, message: "fatal consumer error: \(cString(buffer))")
        }
        let detail = rd_kafka_message_errstr(record).map { String(cString: $0) } ?? ""
        return KafkaError(code: err.rawValue, message: detail)
    }

    /// Errors after which the consumer cannot make progress; everything else is retried by librdkafka.
    /// `_AUTO_OFFSET_RESET`: a start offset out of range with `auto.offset.reset=error` (the partition
    /// reader's default); the partition stops fetching.
    private static func isFatal(_ err: rd_kafka_resp_err_t) -> Bool {
        switch err {
        case RD_KAFKA_RESP_ERR__FATAL, RD_KAFKA_RESP_ERR__AUTHENTICATION, RD_KAFKA_RESP_ERR__INVALID_ARG,
            RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET,
            RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
            true
        default:
            false
        }
    }

    /// The partitions currently assigned to this member (empty before the first rebalance completes).
    func assignment() async -> [KafkaTopicPartitionOffset] {
        await onQueue { core in core.assignmentOnQueue() }
    }

    private func assignmentOnQueue() -> [KafkaTopicPartitionOffset] {
        guard let rk = slot.handle?.pointer else { return [] }
        var list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(rk, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        // The list is ours to free; a leaked one makes rd_kafka_destroy hang.
        defer { rd_kafka_topic_partition_list_destroy(list) }
        return (0..<Int(list.pointee.cnt)).map { index in
            let entry = list.pointee.elems[index]
            return KafkaTopicPartitionOffset(
                topic: String(cString: entry.topic), partition: entry.partition, offset: .absolute(entry.offset))
        }
    }

    /// Synchronously commits `offset` (the next offset to read) for one partition.
    func commit(topic: String, partition: Int32, offset: Int64) async -> KafkaError? {
        await onQueue { core in core.commitOnQueue(topic: topic, partition: partition, offset: offset) }
    }

    private func commitOnQueue(topic: String, partition: Int32, offset: Int64) -> KafkaError? {
        guard let rk = slot.handle?.pointer else { return KafkaError.closed("consumer") }
        let list = rd_kafka_topic_partition_list_new(1)
        defer { rd_kafka_topic_partition_list_destroy(list) }
        let entry = rd_kafka_topic_partition_list_add(list, topic, partition)!
        entry.pointee.offset = offset
        let err = rd_kafka_commit(rk, list, 0)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            return KafkaError(err, "commit \(topic)[\(partition)]@\(offset)")
        }
        let partitionErr = entry.pointee.err
        if partitionErr != RD_KAFKA_RESP_ERR_NO_ERROR {
            return KafkaError(partitionErr, "commit \(topic)[\(partition)]@\(offset)")
        }
        return nil
    }

    /// Commits the next offset to read for several partitions at once. `waitForBroker: false` hands the commit to
    /// librdkafka and returns at once (`rd_kafka_commit` copies the list; a lost asynchronous commit only means a
    /// redelivery, which the consumers' processed-event records make harmless).
    func commit(_ offsets: [KafkaTopicPartitionOffset], waitForBroker: Bool) async -> KafkaError? {
        guard !offsets.isEmpty else { return nil }
        return await onQueue { core in core.commitOnQueue(offsets, waitForBroker: waitForBroker) }
    }

    private func commitOnQueue(_ offsets: [KafkaTopicPartitionOffset], waitForBroker: Bool) -> KafkaError? {
        guard let rk = slot.handle?.pointer else { return KafkaError.closed("consumer") }
        let list = Self.partitionList(offsets)
        defer { rd_kafka_topic_partition_list_destroy(list) }
        let err = rd_kafka_commit(rk, list, waitForBroker ? 0 : 1)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            return KafkaError(err, "commit \(offsets.map(\.description))")
        }
        guard waitForBroker, let list else { return nil }
        for index in 0..<Int(list.pointee.cnt) where list.pointee.elems[index].err != RD_KAFKA_RESP_ERR_NO_ERROR {
            let entry = list.pointee.elems[index]
            return KafkaError(entry.err, "commit \(String(cString: entry.topic))[\(entry.partition)]@\(entry.offset)")
        }
        return nil
    }

    /// A librdkafka list of `offsets`, for the caller to destroy.
    private static func partitionList(_ offsets: [KafkaTopicPartitionOffset]) -> UnsafeMutablePointer<
        rd_kafka_topic_partition_list_t
    >? {
        let list = rd_kafka_topic_partition_list_new(Int32(offsets.count))
        for entry in offsets {
            rd_kafka_topic_partition_list_add(list, entry.topic, entry.partition)!.pointee.offset =
                entry.offset.librdkafkaValue
        }
        return list
    }

    /// Marks offsets (each the next offset to read) for librdkafka's offset store; they are stored before the next
    /// poll or the close, and committed by librdkafka's auto-commit (`KafkaConsumer.store`).
    func store(_ offsets: [KafkaTopicPartitionOffset]) {
        guard !offsets.isEmpty else { return }
        pendingStores.withLock { $0.append(contentsOf: offsets) }
    }

    /// On the queue, or on the poller's thread under `pollLock` (`rd_kafka_offsets_store` is thread-safe).
    private func storePending() {
        let offsets = pendingStores.withLock { pending in
            defer { pending = [] }
            return pending
        }
        guard !offsets.isEmpty, let rk = slot.handle?.pointer else { return }
        let list = Self.partitionList(offsets)
        defer { rd_kafka_topic_partition_list_destroy(list) }
        // `_STATE`: none of the partitions is assigned any more (a rebalance took them); their next owner reads
        // the messages again, which the processed-event records make harmless.
        let err = rd_kafka_offsets_store(rk, list)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            logger.debug(
                "Kafka consumer: offsets not stored: \(KafkaError(err, offsets.map(\.description).joined(separator: ", ")))"
            )
        }
    }

    /// Leaves the group, closes and destroys the handle. Idempotent: later calls queue behind the
    /// first one on the serial queue and return once it has finished.
    /// Leaves the group and destroys the handle, waiting at most `limit`: with the broker away,
    /// `rd_kafka_consumer_close` can block far longer, and a service on SIGTERM must end promptly. The close goes on
    /// on the queue; the group's coordinator drops the member after its session timeout anyway.
    func close(within limit: Duration = .seconds(3)) async {
        closing.withLock { $0 = true }
        wakeups?.signal()  // a waiting poller returns `.closed`
        let resumed = Mutex(false)
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let resumeOnce: @Sendable (Bool) -> Void = { value in
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: value) }
            }
            queue.async { [self] in
                closeOnQueue()
                resumeOnce(true)
            }
            Task {
                try? await Task.sleep(for: limit)
                resumeOnce(false)
            }
        }
        if !finished {
            logger.warning("Kafka consumer close did not finish in time (broker away?); leaving it to finish alone")
        }
    }

    /// Same as `close()` without waiting (deinit without shutdown).
    func closeDetached() {
        closing.withLock { $0 = true }
        wakeups?.signal()
        queue.async { [self] in closeOnQueue() }
    }

    private func closeOnQueue() {
        storePending()  // committed by the close (auto-commit commits the stored offsets on unassign)
        guard let handle = slot.handle else { return }
        pollLock.withLock { _ in slot.handle = nil }  // waits for a poll in progress on another thread
        slot.tickTimer?.cancel()
        slot.tickTimer = nil
        if let consumerQueue = slot.consumerQueue {
            KafkaQueueWakeups.disable(on: consumerQueue)
            rd_kafka_queue_destroy(consumerQueue)
            slot.consumerQueue = nil
        }
        let err = rd_kafka_consumer_close(handle.pointer)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            logger.warning("Kafka consumer close: \(KafkaError(err))")
        }
        rd_kafka_destroy(handle.pointer)
        logger.debug("Kafka consumer closed")
    }
}
