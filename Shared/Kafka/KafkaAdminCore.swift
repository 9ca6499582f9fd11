internal import CRDKafka
import Dispatch
import Logging
import Synchronization

/// Holds the admin client's handle.
///
/// `@unchecked Sendable` is safe because `handle` is only read or written from blocks running on
/// the owning `KafkaAdminCore.queue`, a serial DispatchQueue, so accesses never overlap.
private final class KafkaAdminSlot: @unchecked Sendable {
    var handle: KafkaClientHandle?

    init(handle: KafkaClientHandle) {
        self.handle = handle
    }
}

/// The admin client's handle, serial queue and lifecycle. Every librdkafka call (metadata, watermarks,
/// group listing, the short-lived per-group handles and their commits, destroy) runs on `queue`,
/// never on the Swift cooperative pool; calls of one client therefore run one at a time.
final class KafkaAdminCore: Sendable {
    private let queue: DispatchQueue
    private let slot: KafkaAdminSlot
    /// Must outlive the handles (the admin handle and every per-group handle use it as their opaque):
    /// librdkafka callbacks reach it through the handle's opaque.
    private let context: KafkaClientContext
    /// Settings of the per-group handles, without `group.id`.
    private let groupSettings: [(String, String)]

    private init(
        queue: DispatchQueue, handle: KafkaClientHandle, context: KafkaClientContext, groupSettings: [(String, String)]
    ) {
        self.queue = queue
        self.slot = KafkaAdminSlot(handle: handle)
        self.context = context
        self.groupSettings = groupSettings
    }

    var logger: Logger { context.logger }

    /// The admin handle is a consumer without `group.id`: metadata, watermarks and group listing
    /// need no group, and a consumer's metadata requests do not auto-create topics
    /// (`allow.auto.create.topics=false` is the consumer default; a producer handle would create them).
    /// Plain throwing factory (see the release-mode compiler note in KafkaClientHandle).
    static func make(
        settings: [(String, String)], groupSettings: [(String, String)], context: KafkaClientContext, label: String
    ) throws(KafkaError) -> KafkaAdminCore {
        let handle = try KafkaClientHandle.make(type: RD_KAFKA_CONSUMER, settings: settings, context: context)
        return KafkaAdminCore(
            queue: DispatchQueue(label: label), handle: handle, context: context, groupSettings: groupSettings
        )
    }

    /// Runs `body` with the admin handle on the serial queue. Throws `KafkaError.closed` once closed.
    func withHandle<T: Sendable>(
        _ body: @escaping @Sendable (KafkaAdminCore, OpaquePointer) throws(KafkaError) -> T
    ) async throws(KafkaError) -> T {
        let result: Result<T, KafkaError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                guard let rk = slot.handle?.pointer else {
                    continuation.resume(returning: .failure(KafkaError.closed("admin client")))
                    return
                }
                let result = Result { () throws(KafkaError) -> T in try body(self, rk) }
                // Serve the main queue: error callbacks (logged) would otherwise accumulate.
                _ = rd_kafka_poll(rk, 0)
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }

    /// Creates a consumer handle with `group.id` = `group` that never subscribes, so never joins the
    /// group: it only fetches and commits the group's offsets. Call on the queue; release it with
    /// `destroyGroupHandle` (or `destroyGroupHandleDetached`).
    func makeGroupHandle(group: String) throws(KafkaError) -> KafkaClientHandle {
        // group.id last so that no configured property can replace it.
        try KafkaClientHandle.make(
            type: RD_KAFKA_CONSUMER, settings: groupSettings + [("group.id", group)], context: context)
    }

    /// Destroys a per-group handle. It never joined, so there is nothing to leave: skipping the
    /// consumer close avoids waiting for the group coordinator.
    func destroyGroupHandle(_ handle: KafkaClientHandle) {
        rd_kafka_destroy_flags(handle.pointer, Int32(RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE))
    }

    /// Destroys a per-group handle on a Dispatch worker, for a handle with a request still in flight:
    /// librdkafka then waits for that request (measured: ~45 s against an unreachable coordinator),
    /// which must not block the admin's queue. Keeps the core (and so the context) alive until done.
    func destroyGroupHandleDetached(_ handle: KafkaClientHandle) {
        DispatchQueue.global().async { [self] in
            destroyGroupHandle(handle)
            logger.debug("Kafka admin: detached group handle destroyed")
        }
    }

    /// Destroys the admin handle. Idempotent: later calls queue behind the first one and return once
    /// it has finished; later operations throw `KafkaError.closed`.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                closeOnQueue()
                continuation.resume()
            }
        }
    }

    /// Same as `close()` without waiting (deinit without close).
    func closeDetached() {
        queue.async { [self] in closeOnQueue() }
    }

    private func closeOnQueue() {
        guard let handle = slot.handle else { return }
        slot.handle = nil
        // A consumer without group.id has no group to leave.
        rd_kafka_destroy(handle.pointer)
        logger.debug("Kafka admin client closed")
    }
}

/// Blocking librdkafka calls used by the admin client; each runs on the admin's queue.
enum KafkaAdminCalls {
    /// All topics of the cluster metadata, sorted by name, without internal topics (`__` prefix, e.g.
    /// `__consumer_offsets`; librdkafka's C metadata has no is-internal flag) and without topics the
    /// broker reports as unknown.
    static func topics(_ rk: OpaquePointer, timeoutMilliseconds: Int32) throws(KafkaError) -> [KafkaTopicInfo] {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let err = rd_kafka_metadata(rk, 1, nil, &metadata, timeoutMilliseconds)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else { throw KafkaError(err, "metadata") }
        defer { rd_kafka_metadata_destroy(metadata) }
        var topics: [KafkaTopicInfo] = []
        for index in 0..<Int(metadata.pointee.topic_cnt) {
            let topic = metadata.pointee.topics[index]
            guard let name = topic.topic.map({ String(cString: $0) }), !name.hasPrefix("__"),
                topic.err != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART
            else { continue }
            topics.append(KafkaTopicInfo(name: name, partitions: Int(topic.partition_cnt)))
        }
        return topics.sorted { $0.name < $1.name }
    }

    /// The topic's partition count from the cluster metadata; throws `unknownTopicOrPartition` if the
    /// topic does not exist. Checked before watermark queries, which could auto-create the topic.
    static func partitionCount(_ rk: OpaquePointer, topic: String, timeoutMilliseconds: Int32) throws(KafkaError)
        -> Int32
    {
        guard let info = try topics(rk, timeoutMilliseconds: timeoutMilliseconds).first(where: { $0.name == topic })
        else {
            throw KafkaError(code: KafkaError.unknownTopicOrPartition, message: "no topic \(topic)")
        }
        return Int32(info.partitions)
    }

    static func watermarks(
        _ rk: OpaquePointer, topic: String, partition: Int32, timeoutMilliseconds: Int32
    ) throws(KafkaError) -> KafkaWatermarks {
        var low: Int64 = -1
        var high: Int64 = -1
        let err = rd_kafka_query_watermark_offsets(rk, topic, partition, &low, &high, timeoutMilliseconds)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(err, "watermarks of \(topic)[\(partition)]") }
        // Seen with librdkafka 2.0.2 for a topic it had just learned about: success without values.
        guard low >= 0, high >= low else {
            throw KafkaError(
                code: KafkaError.unknownTopicOrPartition, message: "no watermarks for \(topic)[\(partition)]")
        }
        return KafkaWatermarks(low: low, high: high)
    }

    /// `rd_kafka_list_groups`: ListGroups to every broker, then DescribeGroups (state, members).
    /// `group` nil = all groups.
    static func groups(_ rk: OpaquePointer, group: String?, timeoutMilliseconds: Int32) throws(KafkaError)
        -> [KafkaGroupInfo]
    {
        var list: UnsafePointer<rd_kafka_group_list>?
        let err = rd_kafka_list_groups(rk, group, &list, timeoutMilliseconds)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let list else {
            if err == RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE {
                throw KafkaError(
                    err, "the broker does not support ListGroups/DescribeGroups (librdkafka's mock cluster does not)"
                )
            }
            throw KafkaError(err, group.map { "describe group \($0)" } ?? "list groups")
        }
        defer { rd_kafka_group_list_destroy(list) }
        var groups: [KafkaGroupInfo] = []
        for index in 0..<Int(list.pointee.group_cnt) {
            let info = list.pointee.groups[index]
            let name = info.group.map { String(cString: $0) } ?? ""
            guard info.err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(info.err, "describe group \(name)") }
            groups.append(
                KafkaGroupInfo(
                    name: name,
                    state: info.state.map { String(cString: $0) } ?? "",
                    memberCount: Int(info.member_cnt)
                ))
        }
        return groups.sorted { $0.name < $1.name }
    }

    /// `rd_kafka_committed` for `partitions` of `topic`; no committed offset = no entry.
    static func committed(
        _ rk: OpaquePointer, topic: String, partitions: [Int32], timeoutMilliseconds: Int32
    ) throws(KafkaError) -> [Int32: Int64] {
        guard let list = rd_kafka_topic_partition_list_new(Int32(partitions.count)) else {
            throw KafkaError(RD_KAFKA_RESP_ERR__FAIL, "rd_kafka_topic_partition_list_new failed")
        }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for partition in partitions {
            _ = rd_kafka_topic_partition_list_add(list, topic, partition)
        }
        let err = rd_kafka_committed(rk, list, timeoutMilliseconds)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(err, "committed offsets of \(topic)") }
        var offsets: [Int32: Int64] = [:]
        for index in 0..<Int(list.pointee.cnt) {
            let entry = list.pointee.elems[index]
            guard entry.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaError(entry.err, "committed offset of \(topic)[\(entry.partition)]")
            }
            // RD_KAFKA_OFFSET_INVALID (-1001): nothing committed.
            if entry.offset >= 0 {
                offsets[entry.partition] = entry.offset
            }
        }
        return offsets
    }

    enum CommitOutcome {
        case committed
        case failed(KafkaError)
        /// No result within the timeout: the commit may still happen.
        case timedOut
    }

    /// Commits absolute `offsets` through `rk` (a per-group handle) and waits up to `timeoutMilliseconds`
    /// for the broker's answer. `rd_kafka_commit_queue` with a result queue instead of the synchronous
    /// `rd_kafka_commit`, whose wait has no timeout (it waits for the group coordinator indefinitely).
    static func commit(
        _ rk: OpaquePointer, offsets: [(topic: String, partition: Int32, offset: Int64)], timeoutMilliseconds: Int32
    ) -> CommitOutcome {
        let list = rd_kafka_topic_partition_list_new(Int32(offsets.count))
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for entry in offsets {
            rd_kafka_topic_partition_list_add(list, entry.topic, entry.partition)!.pointee.offset = entry.offset
        }
        let results = rd_kafka_queue_new(rk)
        defer { rd_kafka_queue_destroy(results) }
        let err = rd_kafka_commit_queue(rk, list, results, nil, nil)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { return .failed(KafkaError(err, "commit")) }
        guard let event = rd_kafka_queue_poll(results, timeoutMilliseconds) else { return .timedOut }
        defer { rd_kafka_event_destroy(event) }
        guard rd_kafka_event_type(event) == RD_KAFKA_EVENT_OFFSET_COMMIT else {
            return .failed(
                KafkaError(
                    code: RD_KAFKA_RESP_ERR__FAIL.rawValue,
                    message: "commit: unexpected event \(String(cString: rd_kafka_event_name(event)))"))
        }
        let eventErr = rd_kafka_event_error(event)
        guard eventErr == RD_KAFKA_RESP_ERR_NO_ERROR else { return .failed(KafkaError(eventErr, "commit")) }
        if let committed = rd_kafka_event_topic_partition_list(event) {
            for index in 0..<Int(committed.pointee.cnt) {
                let entry = committed.pointee.elems[index]
                if entry.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                    let topic = entry.topic.map { String(cString: $0) } ?? "?"
                    return .failed(KafkaError(entry.err, "commit \(topic)[\(entry.partition)]@\(entry.offset)"))
                }
            }
        }
        return .committed
    }
}
