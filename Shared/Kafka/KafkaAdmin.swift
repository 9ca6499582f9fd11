internal import CRDKafka
import Logging

/// Inspects topics and consumer groups and sets a group's committed offsets (for operator tools).
///
/// Every call runs its librdkafka calls on the client's serial queue (off the cooperative pool), so
/// the calls of one client run one at a time. What librdkafka's mock cluster (the dev broker)
/// supports, measured with librdkafka 2.0.2:
/// - `topics`, `watermarks`, `committedOffsets`: yes.
/// - `groups`, `group(named:)`: no — the mock implements neither ListGroups nor DescribeGroups; they
///   throw `KafkaError.unsupportedFeature` at once.
/// - `commitOffsets`: only for a group that has never had a member since the broker started (see there).
package final class KafkaAdmin: Sendable {
    private let core: KafkaAdminCore

    /// Settings of the per-group handles used by `committedOffsets` and `commitOffsets` (before
    /// `KafkaConfiguration.properties`, which may override them; `group.id` is always the call's group).
    package static let groupHandleProperties: [(String, String)] = [
        ("enable.auto.commit", "false"),
        ("enable.auto.offset.store", "false"),
    ]

    package convenience init(configuration: KafkaConfiguration, logger: Logger) throws {
        var logger = logger
        logger[metadataKey: "kafka.client"] = "\(configuration.clientId)"
        let core = try KafkaAdminCore.make(
            settings: configuration.librdkafkaSettings(defaults: []),
            groupSettings: configuration.librdkafkaSettings(defaults: Self.groupHandleProperties),
            context: KafkaClientContext(logger: logger),
            label: "sns.kafka.admin.\(configuration.clientId)"
        )
        self.init(core: core)
    }

    private init(core: KafkaAdminCore) {
        self.core = core
    }

    deinit {
        core.closeDetached()
    }

    /// Destroys the client. Idempotent; later calls throw `KafkaError` (`KafkaError.shutDown`).
    package func close() async {
        await core.close()
    }

    /// All topics in the cluster metadata with their partition counts, sorted by name, without
    /// internal topics (names starting with `__`, e.g. `__consumer_offsets`).
    package func topics(timeout: Duration = .seconds(10)) async throws -> [KafkaTopicInfo] {
        let milliseconds = timeout.clampedMilliseconds
        return try await core.withHandle { _, rk throws(KafkaError) in
            try KafkaAdminCalls.topics(rk, timeoutMilliseconds: milliseconds)
        }
    }

    /// The partition's low and high watermarks. Throws `KafkaError.unknownTopicOrPartition` for a topic
    /// or partition that does not exist (checked in the metadata first, so the query never auto-creates it).
    package func watermarks(topic: String, partition: Int32, timeout: Duration = .seconds(10)) async throws
        -> KafkaWatermarks
    {
        let deadline = KafkaDeadline(timeout)
        return try await core.withHandle { _, rk throws(KafkaError) in
            let count = try KafkaAdminCalls.partitionCount(rk, topic: topic, timeoutMilliseconds: deadline.remaining)
            guard (0..<count).contains(partition) else {
                throw KafkaError(
                    code: KafkaError.unknownTopicOrPartition, message: "\(topic) has no partition \(partition)")
            }
            return try KafkaAdminCalls.watermarks(
                rk, topic: topic, partition: partition, timeoutMilliseconds: deadline.remaining)
        }
    }

    /// The watermarks of every partition of `topic`, by partition.
    package func watermarks(topic: String, timeout: Duration = .seconds(10)) async throws -> [Int32: KafkaWatermarks] {
        let deadline = KafkaDeadline(timeout)
        return try await core.withHandle { _, rk throws(KafkaError) in
            let count = try KafkaAdminCalls.partitionCount(rk, topic: topic, timeoutMilliseconds: deadline.remaining)
            var result: [Int32: KafkaWatermarks] = [:]
            for partition in 0..<count {
                result[partition] = try KafkaAdminCalls.watermarks(
                    rk, topic: topic, partition: partition, timeoutMilliseconds: deadline.remaining
                )
            }
            return result
        }
    }

    /// All consumer groups the brokers know, with state and live member count, sorted by name.
    /// Throws `KafkaError.unsupportedFeature` on librdkafka's mock cluster (no ListGroups/DescribeGroups).
    package func groups(timeout: Duration = .seconds(10)) async throws -> [KafkaGroupInfo] {
        let milliseconds = timeout.clampedMilliseconds
        return try await core.withHandle { _, rk throws(KafkaError) in
            try KafkaAdminCalls.groups(rk, group: nil, timeoutMilliseconds: milliseconds)
        }
    }

    /// One group (DescribeGroups); nil if the broker does not know it (state "Dead" with no members).
    /// Throws `KafkaError.unsupportedFeature` on librdkafka's mock cluster.
    package func group(named name: String, timeout: Duration = .seconds(10)) async throws -> KafkaGroupInfo? {
        let milliseconds = timeout.clampedMilliseconds
        let found = try await core.withHandle { _, rk throws(KafkaError) in
            try KafkaAdminCalls.groups(rk, group: name, timeoutMilliseconds: milliseconds)
        }
        return found.first { $0.name == name && !($0.state == "Dead" && $0.memberCount == 0) }
    }

    /// The group's committed offset (the next offset its members will read) for each of the
    /// partitions `0..<partitions` of `topic`; partitions without a committed offset have no entry.
    /// Reads through a handle with `group.id` = `group` that does not join the group.
    package func committedOffsets(
        group: String, topic: String, partitions: Int32, timeout: Duration = .seconds(10)
    ) async throws -> [Int32: Int64] {
        let milliseconds = timeout.clampedMilliseconds
        return try await core.withHandle { core, _ throws(KafkaError) in
            let handle = try core.makeGroupHandle(group: group)
            do throws(KafkaError) {
                let offsets = try KafkaAdminCalls.committed(
                    handle.pointer, topic: topic, partitions: Array(0..<max(partitions, 0)),
                    timeoutMilliseconds: milliseconds
                )
                core.destroyGroupHandle(handle)
                return offsets
            } catch {
                // After a timed-out request, destroying the handle can block for a long time: not on this queue.
                if error.code == KafkaError.timedOut {
                    core.destroyGroupHandleDetached(handle)
                } else {
                    core.destroyGroupHandle(handle)
                }
                throw error
            }
        }
    }

    /// Sets the group's committed offsets without joining the group, through a handle with
    /// `group.id` = `group` that never subscribes (`enable.auto.commit=false`). A consumer that joins
    /// the group afterwards starts at these offsets on its assigned partitions.
    ///
    /// `.beginning` and `.end` are resolved to the partition's low and high watermark; an absolute
    /// offset must lie within them (else `KafkaError.invalidArgument`). Partitions not listed keep
    /// their committed offsets. Nothing is committed unless every entry resolves.
    ///
    /// The broker refuses the commit with `KafkaError.unknownMemberId` if the group has members:
    /// a real Kafka broker accepts commits from outside the group only while it is Empty (no live
    /// members); librdkafka's mock cluster refuses them for any group that has had a member since the
    /// broker started, even after every member left (measured with librdkafka 2.0.2).
    ///
    /// Throws `KafkaError.timedOut` if the broker did not answer within `timeout`: the commit may
    /// still take effect.
    package func commitOffsets(
        group: String, offsets: [KafkaTopicPartitionOffset], timeout: Duration = .seconds(10)
    ) async throws {
        guard !offsets.isEmpty else { return }
        guard Set(offsets.map { "\($0.topic)\u{0}\($0.partition)" }).count == offsets.count else {
            throw KafkaError(code: KafkaError.invalidArgument, message: "commit: a partition is listed twice")
        }
        let deadline = KafkaDeadline(timeout)
        try await core.withHandle { core, rk throws(KafkaError) in
            let resolved = try Self.resolve(offsets, rk: rk, deadline: deadline)
            let handle = try core.makeGroupHandle(group: group)
            // Find the group coordinator first (bounded by the timeout): a commit waits for the
            // coordinator without limit, and destroying a handle with a commit in flight blocks.
            do throws(KafkaError) {
                _ = try KafkaAdminCalls.committed(
                    handle.pointer, topic: resolved[0].topic, partitions: [resolved[0].partition],
                    timeoutMilliseconds: deadline.remaining
                )
            } catch {
                core.destroyGroupHandle(handle)
                throw error
            }
            switch KafkaAdminCalls.commit(handle.pointer, offsets: resolved, timeoutMilliseconds: deadline.remaining) {
            case .committed:
                core.destroyGroupHandle(handle)
            case .failed(let error):
                core.destroyGroupHandle(handle)
                if error.code == KafkaError.unknownMemberId {
                    throw KafkaError(
                        code: error.code,
                        message: "commit refused for group \(group): it has members (a real broker accepts commits "
                            + "from outside the group only while it is Empty; the mock broker refuses them for any "
                            + "group that has had a member since it started): \(error.message)"
                    )
                }
                throw error
            case .timedOut:
                core.destroyGroupHandleDetached(handle)
                throw KafkaError(
                    code: KafkaError.timedOut,
                    message: "commit for group \(group): no answer within \(timeout); it may still take effect"
                )
            }
        }
    }

    /// Resolves `.beginning`/`.end` to watermarks and checks absolute offsets against them.
    private static func resolve(
        _ offsets: [KafkaTopicPartitionOffset], rk: OpaquePointer, deadline: KafkaDeadline
    ) throws(KafkaError) -> [(topic: String, partition: Int32, offset: Int64)] {
        let partitionCounts = Dictionary(
            try KafkaAdminCalls.topics(rk, timeoutMilliseconds: deadline.remaining).map {
                ($0.name, Int32($0.partitions))
            },
            uniquingKeysWith: { first, _ in first }
        )
        var resolved: [(topic: String, partition: Int32, offset: Int64)] = []
        for entry in offsets {
            guard let count = partitionCounts[entry.topic], (0..<count).contains(entry.partition) else {
                throw KafkaError(
                    code: KafkaError.unknownTopicOrPartition,
                    message: "commit: no partition \(entry.topic)[\(entry.partition)]")
            }
            let range = try KafkaAdminCalls.watermarks(
                rk, topic: entry.topic, partition: entry.partition, timeoutMilliseconds: deadline.remaining
            )
            let offset: Int64
            switch entry.offset {
            case .beginning:
                offset = range.low
            case .end:
                offset = range.high
            case .absolute(let value):
                guard value >= range.low, value <= range.high else {
                    throw KafkaError(
                        code: KafkaError.invalidArgument,
                        message: "commit: \(entry) is outside the stored range \(range.low)...\(range.high)"
                    )
                }
                offset = value
            }
            resolved.append((entry.topic, entry.partition, offset))
        }
        return resolved
    }
}

/// A deadline for a sequence of blocking calls, handing each the time left in milliseconds.
struct KafkaDeadline: Sendable {
    let end: ContinuousClock.Instant

    init(_ timeout: Duration) {
        end = .now + timeout
    }

    /// Milliseconds left (0 once passed: librdkafka then fails the call with a timeout at once).
    var remaining: Int32 {
        (end - .now).clampedMilliseconds
    }
}
