import Foundation
import Logging

/// Reads explicit partitions from explicit offsets (`rd_kafka_assign`): no group membership, no
/// rebalances, no commits. For operator tools (listing a dead-letter topic, tailing a topic).
///
/// librdkafka's consumer API needs a `group.id` even for assigned partitions; the reader uses a unique
/// one (`sns.partition-reader.<uuid>`) that never joins a group and never commits, so no group is
/// created on the broker. `auto.offset.reset=error`: a start offset outside the stored range makes
/// `next` throw `KafkaError.offsetOutOfRange` instead of silently jumping.
package final class KafkaPartitionReader: Sendable {
    /// Where `readAll` starts in each partition.
    package enum Start: Sendable, Equatable {
        /// Every partition from its low watermark.
        case beginning
        /// The last `n` records of every partition (all of them if it holds fewer).
        case last(Int)
        /// Only the listed partitions, each from the given offset (raised to the low watermark if
        /// below it; a partition whose offset is at or past its high watermark yields nothing).
        case offsets([Int32: Int64])
    }

    /// Defaults applied before `KafkaConfiguration.properties` (which may override them).
    /// `enable.auto.commit=false` and the reader's own `group.id` are applied last, always.
    package static let defaultProperties: [(String, String)] = [
        ("enable.auto.offset.store", "false"),
        ("enable.partition.eof", "true"),
        ("auto.offset.reset", "error"),
    ]

    enum Event: Sendable {
        case message(KafkaConsumerMessage)
        case endOfPartition(partition: Int32, offset: Int64)
    }

    private let core: KafkaConsumerCore

    /// Starts fetching every assigned partition at its offset (`.beginning`, `.end` or absolute).
    package convenience init(
        configuration: KafkaConfiguration, assignments: [KafkaTopicPartitionOffset], logger: Logger
    ) throws {
        var logger = logger
        logger[metadataKey: "kafka.client"] = "\(configuration.clientId)"
        let group = "sns.partition-reader.\(UUID().uuidString.lowercased())"
        let settings =
            configuration.librdkafkaSettings(defaults: Self.defaultProperties)
            + [("enable.auto.commit", "false"), ("group.id", group)]
        let core = try KafkaConsumerCore.make(
            settings: settings,
            assignment: assignments,
            context: KafkaClientContext(logger: logger),
            label: "sns.kafka.reader.\(configuration.clientId)"
        )
        self.init(core: core)
    }

    private init(core: KafkaConsumerCore) {
        self.core = core
    }

    deinit {
        core.closeDetached()
    }

    /// The next record of any assigned partition (in offset order within a partition), or nil if none
    /// arrived within `timeout` (polled in steps of at most 100 ms), after `close()`, or when the
    /// calling task is cancelled. Transient errors are logged and skipped; fatal ones (including
    /// `KafkaError.offsetOutOfRange`) are thrown.
    package func next(timeout: Duration) async throws -> KafkaConsumerMessage? {
        let deadline = KafkaDeadline(timeout)
        while true {
            switch try await nextEvent(deadline: deadline) {
            case nil:
                return nil
            case .message(let message):
                return message
            case .endOfPartition:
                continue
            }
        }
    }

    /// Stops fetching and destroys the handle. Idempotent; an in-progress `next` returns nil within
    /// one poll interval.
    package func close() async {
        await core.close()
    }

    /// The next record or end-of-partition notice before `deadline`.
    func nextEvent(deadline: KafkaDeadline) async throws -> Event? {
        while !core.isClosing, !Task.isCancelled {
            switch await core.poll(timeoutMilliseconds: deadline.remaining) {
            case .closed:
                return nil
            case .idle:
                break
            case .message(let message):
                return .message(message)
            case .endOfPartition(_, let partition, let offset):
                return .endOfPartition(partition: partition, offset: offset)
            case .error(let error, let fatal):
                if fatal {
                    core.logger.error("Kafka partition reader failed: \(error)")
                    throw error
                }
                core.logger.warning("Kafka partition reader: \(error)")
            }
            if deadline.remaining == 0 { return nil }
        }
        return nil
    }

    /// Reads `topic` from `start` up to each partition's high watermark as it was when called, then
    /// stops: records produced later are not included; empty partitions are not read at all.
    /// Returns the records ordered by partition, then offset.
    ///
    /// `idleTimeout` bounds the wait for any record or end-of-partition notice (a guard against an
    /// unreachable broker, not a limit on the total time): exceeding it throws `KafkaError.timedOut`.
    /// Throws `KafkaError.unknownTopicOrPartition` if the topic does not exist.
    package static func readAll(
        configuration: KafkaConfiguration,
        topic: String,
        logger: Logger,
        from start: Start = .beginning,
        idleTimeout: Duration = .seconds(30)
    ) async throws -> [KafkaConsumerMessage] {
        let admin = try KafkaAdmin(configuration: configuration, logger: logger)
        let ranges: [Int32: KafkaWatermarks]
        do {
            ranges = try await admin.watermarks(topic: topic, timeout: idleTimeout)
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()

        if case .offsets(let offsets) = start, let unknown = offsets.keys.sorted().first(where: { ranges[$0] == nil }) {
            throw KafkaError(code: KafkaError.unknownTopicOrPartition, message: "\(topic) has no partition \(unknown)")
        }
        var assignments: [KafkaTopicPartitionOffset] = []
        var ends: [Int32: Int64] = [:]
        for (partition, range) in ranges.sorted(by: { $0.key < $1.key }) {
            let from: Int64?
            switch start {
            case .beginning:
                from = range.low
            case .last(let count):
                from = max(range.low, range.high - Int64(max(count, 0)))
            case .offsets(let offsets):
                from = offsets[partition].map { max($0, range.low) }
            }
            guard let from, from < range.high else { continue }
            assignments.append(KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: .absolute(from)))
            ends[partition] = range.high
        }
        guard !assignments.isEmpty else { return [] }

        let reader = try KafkaPartitionReader(configuration: configuration, assignments: assignments, logger: logger)
        do {
            let records = try await reader.collect(until: ends, topic: topic, idleTimeout: idleTimeout)
            await reader.close()
            return records
        } catch {
            await reader.close()
            throw error
        }
    }

    /// Reads until every partition in `ends` reached its end offset (exclusive) or reported its end.
    private func collect(until ends: [Int32: Int64], topic: String, idleTimeout: Duration) async throws
        -> [KafkaConsumerMessage]
    {
        var unfinished = Set(ends.keys)
        var records: [Int32: [KafkaConsumerMessage]] = [:]
        while !unfinished.isEmpty {
            try Task.checkCancellation()
            guard let event = try await nextEvent(deadline: KafkaDeadline(idleTimeout)) else {
                try Task.checkCancellation()
                throw KafkaError(
                    code: KafkaError.timedOut,
                    message:
                        "reading \(topic): nothing arrived for \(idleTimeout); partitions \(unfinished.sorted()) unfinished"
                )
            }
            switch event {
            case .message(let record):
                // Records at or past the end (produced after the call) are dropped.
                guard let end = ends[record.partition], record.offset < end else { continue }
                records[record.partition, default: []].append(record)
                if record.offset + 1 >= end {
                    unfinished.remove(record.partition)
                }
            case .endOfPartition(let partition, _):
                // Everything readable was read (with read_committed, the end can be below the high
                // watermark while a transaction is open; nothing more would come before it ends).
                unfinished.remove(partition)
            }
        }
        return records.sorted { $0.key < $1.key }.flatMap(\.value)
    }
}
