import Foundation
import SNSKafka
import Testing

/// `KafkaAdmin` and `KafkaPartitionReader` against the broker under test. On librdkafka's mock
/// cluster (the dev broker) a topic gets 4 partitions on first produce, and ListGroups/DescribeGroups
/// are not implemented: the group tests check the mock's answer there and the real answer on Kafka.
@Suite("Admin and partition reader")
struct AdminTests {
    static func admin() throws -> KafkaAdmin {
        try KafkaAdmin(
            configuration: KafkaTestBroker.configuration("kafka-tests-admin"), logger: KafkaTestBroker.logger)
    }

    /// Sends one record per value, all with `key` (so all to one partition), in order.
    static func send(_ topic: String, key: String, _ values: [String]) async throws -> [KafkaDeliveryReport] {
        try await send(values.map { KafkaOutgoingMessage(topic: topic, key: key.bytes, value: $0.bytes) })
    }

    static func send(_ messages: [KafkaOutgoingMessage]) async throws -> [KafkaDeliveryReport] {
        let producer = try KafkaTestBroker.producer()
        let reports = try await withHangGuard("sending") { try await producer.send(messages) }
        await producer.shutdown()
        return reports
    }

    static func readAll(
        _ topic: String, from start: KafkaPartitionReader.Start = .beginning
    ) async throws -> [KafkaConsumerMessage] {
        let configuration = try KafkaTestBroker.configuration("kafka-tests-reader")
        return try await withHangGuard("reading \(topic)") {
            try await KafkaPartitionReader.readAll(
                configuration: configuration, topic: topic, logger: KafkaTestBroker.logger, from: start
            )
        }
    }

    /// False on librdkafka's mock cluster, which answers ListGroups with `_UNSUPPORTED_FEATURE`.
    static func brokerDescribesGroups(_ admin: KafkaAdmin) async throws -> Bool {
        do {
            _ = try await withHangGuard("listing groups") { try await admin.groups() }
            return true
        } catch let error as KafkaError where error.code == KafkaError.unsupportedFeature {
            return false
        }
    }

    // MARK: - Topics and watermarks

    @Test("topics() lists a produced topic with its partition count, sorted, without internal topics")
    func topicsListsProducedTopic() async throws {
        let topic = KafkaTestBroker.uniqueTopic("admin-topics")
        _ = try await Self.send(topic, key: "k", ["one"])
        let admin = try Self.admin()

        let topics = try await withHangGuard("listing topics") { try await admin.topics() }
        // The mock creates 4 partitions on first produce.
        #expect(topics.first { $0.name == topic } == KafkaTopicInfo(name: topic, partitions: 4))
        #expect(topics.map(\.name) == topics.map(\.name).sorted())
        #expect(!topics.contains { $0.name.hasPrefix("__") })

        await admin.close()
        await admin.close()  // idempotent
        let error = await #expect(throws: KafkaError.self) { try await admin.topics() }
        #expect(error?.code == KafkaError.shutDown)
    }

    @Test("Watermarks of a missing topic fail without creating it")
    func watermarksOfMissingTopic() async throws {
        let missing = KafkaTestBroker.uniqueTopic("admin-missing")
        let admin = try Self.admin()
        let error = await #expect(throws: KafkaError.self) {
            try await withHangGuard("querying") { try await admin.watermarks(topic: missing, partition: 0) }
        }
        #expect(error?.code == KafkaError.unknownTopicOrPartition)
        let all = await #expect(throws: KafkaError.self) {
            try await withHangGuard("querying") { try await admin.watermarks(topic: missing) }
        }
        #expect(all?.code == KafkaError.unknownTopicOrPartition)
        let topics = try await withHangGuard("listing topics") { try await admin.topics() }
        #expect(!topics.contains { $0.name == missing })
        await admin.close()
    }

    @Test("Watermarks move as records are produced")
    func watermarksMove() async throws {
        let topic = KafkaTestBroker.uniqueTopic("admin-watermarks")
        let first = try await Self.send(topic, key: "k", (0..<5).map(String.init))
        let partition = first[0].partition
        let admin = try Self.admin()

        let before = try await withHangGuard("querying") {
            try await admin.watermarks(topic: topic, partition: partition)
        }
        #expect(before == KafkaWatermarks(low: 0, high: 5))

        _ = try await Self.send(topic, key: "k", ["5", "6", "7"])
        let after = try await withHangGuard("querying") {
            try await admin.watermarks(topic: topic, partition: partition)
        }
        #expect(after == KafkaWatermarks(low: 0, high: 8))

        let all = try await withHangGuard("querying") { try await admin.watermarks(topic: topic) }
        #expect(all.keys.sorted() == [0, 1, 2, 3])
        for (index, range) in all {
            #expect(range == (index == partition ? KafkaWatermarks(low: 0, high: 8) : KafkaWatermarks(low: 0, high: 0)))
        }
        let error = await #expect(throws: KafkaError.self) {
            try await withHangGuard("querying") { try await admin.watermarks(topic: topic, partition: 4) }
        }
        #expect(error?.code == KafkaError.unknownTopicOrPartition)
        await admin.close()
    }

    @Test("Admin calls against an unreachable broker fail within their timeout")
    func unreachableBroker() async throws {
        var logger = KafkaTestBroker.logger
        logger.logLevel = .critical  // connection-refused noise
        let admin = try KafkaAdmin(
            configuration: KafkaConfiguration(bootstrapServers: "127.0.0.1:1", clientId: "kafka-tests-unreachable"),
            logger: logger
        )
        let offsets = [KafkaTopicPartitionOffset(topic: "test.unreachable", partition: 0, offset: .beginning)]
        await #expect(throws: KafkaError.self) {
            try await withHangGuard("listing topics") { try await admin.topics(timeout: .seconds(1)) }
        }
        await #expect(throws: KafkaError.self) {
            try await withHangGuard("reading offsets") {
                try await admin.committedOffsets(
                    group: "test.unreachable", topic: "test.unreachable", partitions: 1, timeout: .seconds(1))
            }
        }
        await #expect(throws: KafkaError.self) {
            try await withHangGuard("committing") {
                try await admin.commitOffsets(group: "test.unreachable", offsets: offsets, timeout: .seconds(1))
            }
        }
        try await withHangGuard("closing") { await admin.close() }
    }

    // MARK: - Reading

    @Test("readAll returns exactly what was produced, per partition in order, and stops")
    func readAllReturnsEverything() async throws {
        let topic = KafkaTestBroker.uniqueTopic("admin-readall")
        let messages = (0..<30).map { index in
            KafkaOutgoingMessage(
                topic: topic, key: "key-\(index % 5)".bytes, value: "value-\(index)".bytes,
                headers: [KafkaHeader(key: "index", string: "\(index)")]
            )
        }
        let reports = try await Self.send(messages)
        #expect(Set(reports.map(\.partition)).count >= 2, "the keys should spread over several partitions")

        let records = try await Self.readAll(topic)

        struct Row: Equatable {
            var partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader]
        }
        let expected = zip(messages, reports)
            .map { Row(partition: $1.partition, offset: $1.offset, key: $0.key, value: $0.value, headers: $0.headers) }
            .sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
        let actual = records.map {
            Row(partition: $0.partition, offset: $0.offset, key: $0.key, value: $0.value, headers: $0.headers)
        }
        #expect(actual == expected)
        #expect(records.allSatisfy { $0.topic == topic })

        // Later records are included by a later call.
        _ = try await Self.send(topic, key: "key-0", ["late"])
        let again = try await Self.readAll(topic)
        #expect(again.count == 31)
        #expect(again.contains { $0.value == "late".bytes })
    }

    @Test("readAll terminates with three empty partitions, and honours last(n) and explicit offsets")
    func readAllWithEmptyPartitions() async throws {
        let topic = KafkaTestBroker.uniqueTopic("admin-readall-empty")
        let reports = try await Self.send(topic, key: "only", ["a", "b", "c"])
        let partition = reports[0].partition

        let all = try await Self.readAll(topic)
        #expect(all.map(\.value) == ["a", "b", "c"].map(\.bytes))
        #expect(all.map(\.offset) == reports.map(\.offset))
        #expect(all.allSatisfy { $0.partition == partition })

        let lastTwo = try await Self.readAll(topic, from: .last(2))
        #expect(lastTwo.map(\.value) == ["b", "c"].map(\.bytes))
        let lastTen = try await Self.readAll(topic, from: .last(10))
        #expect(lastTen.map(\.value) == ["a", "b", "c"].map(\.bytes))
        #expect(try await Self.readAll(topic, from: .last(0)).isEmpty)

        let fromOne = try await Self.readAll(topic, from: .offsets([partition: 1]))
        #expect(fromOne.map(\.offset) == [1, 2])
        #expect(try await Self.readAll(topic, from: .offsets([partition: 3])).isEmpty)
        let otherPartition = (partition + 1) % 4
        #expect(try await Self.readAll(topic, from: .offsets([otherPartition: 0])).isEmpty)

        let error = await #expect(throws: KafkaError.self) { try await Self.readAll(topic, from: .offsets([99: 0])) }
        #expect(error?.code == KafkaError.unknownTopicOrPartition)
        let missing = await #expect(throws: KafkaError.self) {
            try await Self.readAll(KafkaTestBroker.uniqueTopic("admin-readall-missing"))
        }
        #expect(missing?.code == KafkaError.unknownTopicOrPartition)
    }

    @Test("A partition reader starts at an absolute offset, at the beginning, and rejects an offset past the end")
    func readerFromOffset() async throws {
        let topic = KafkaTestBroker.uniqueTopic("admin-reader")
        let reports = try await Self.send(topic, key: "k", (0..<6).map(String.init))
        let partition = reports[0].partition
        let configuration = try KafkaTestBroker.configuration("kafka-tests-reader")

        let reader = try KafkaPartitionReader(
            configuration: configuration,
            assignments: [KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: 2)],
            logger: KafkaTestBroker.logger
        )
        var values: [String] = []
        var offsets: [Int64] = []
        for _ in 0..<4 {
            let record = try #require(
                try await withHangGuard("reading") { try await reader.next(timeout: .seconds(20)) })
            values.append(String(decoding: record.value, as: UTF8.self))
            offsets.append(record.offset)
        }
        #expect(values == ["2", "3", "4", "5"])
        #expect(offsets == Array(reports.map(\.offset)[2...]))
        await reader.close()
        await reader.close()  // idempotent
        #expect(try await reader.next(timeout: .seconds(1)) == nil)

        let fromStart = try KafkaPartitionReader(
            configuration: configuration,
            assignments: [KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: .beginning)],
            logger: KafkaTestBroker.logger
        )
        let first = try #require(try await withHangGuard("reading") { try await fromStart.next(timeout: .seconds(20)) })
        #expect(first.offset == reports[0].offset)
        #expect(first.value == "0".bytes)
        await fromStart.close()

        let pastEnd = try KafkaPartitionReader(
            configuration: configuration,
            assignments: [KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: 100)],
            logger: KafkaTestBroker.logger
        )
        let error = await #expect(throws: KafkaError.self) {
            try await withHangGuard("reading") {
                // nil = nothing yet within the poll window: keep asking until the error arrives.
                while try await pastEnd.next(timeout: .seconds(1)) == nil {}
            }
        }
        #expect(error?.code == KafkaError.offsetOutOfRange)
        await pastEnd.close()
    }

    // MARK: - Committed offsets

    @Test("commitOffsets(.beginning) makes a consumer joining the group replay the topic")
    func commitBeginningReplays() async throws {
        let topic = KafkaTestBroker.uniqueTopic("admin-replay")
        let group = KafkaTestBroker.uniqueGroup("admin-replay")
        let reports = try await Self.send(topic, key: "k", (0..<5).map(String.init))
        let admin = try Self.admin()

        #expect(
            try await withHangGuard("reading offsets") {
                try await admin.committedOffsets(group: group, topic: topic, partitions: 4)
            } == [:])
        try await withHangGuard("committing") {
            try await admin.commitOffsets(
                group: group,
                offsets: (0..<4).map { KafkaTopicPartitionOffset(topic: topic, partition: $0, offset: .beginning) }
            )
        }
        let committed = try await withHangGuard("reading offsets") {
            try await admin.committedOffsets(group: group, topic: topic, partitions: 4)
        }
        #expect(committed == [0: 0, 1: 0, 2: 0, 3: 0])
        await admin.close()

        // offsetReset .latest: without the committed offsets this consumer would read nothing.
        let consumer = try KafkaTestBroker.consumer(group: group, topic: topic, offsetReset: .latest)
        let received = try await KafkaTestBroker.receive(5, from: consumer)
        await consumer.shutdown()
        #expect(received.map { String(decoding: $0.value, as: UTF8.self) } == ["0", "1", "2", "3", "4"])
        #expect(received.map(\.offset) == reports.map(\.offset))
    }

    @Test("commitOffsets(offset N) makes a consumer joining the group start at N; bad offsets commit nothing")
    func commitOffsetStartsThere() async throws {
        let topic = KafkaTestBroker.uniqueTopic("admin-seek")
        let group = KafkaTestBroker.uniqueGroup("admin-seek")
        let reports = try await Self.send(topic, key: "k", (0..<10).map(String.init))
        let partition = reports[0].partition
        let others = (0..<Int32(4)).filter { $0 != partition }
        let admin = try Self.admin()

        // Out of range, or an unknown partition: rejected before anything is committed.
        let tooFar = await #expect(throws: KafkaError.self) {
            try await withHangGuard("committing") {
                try await admin.commitOffsets(
                    group: group, offsets: [KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: 11)])
            }
        }
        #expect(tooFar?.code == KafkaError.invalidArgument)
        let unknown = await #expect(throws: KafkaError.self) {
            try await withHangGuard("committing") {
                try await admin.commitOffsets(
                    group: group,
                    offsets: [
                        KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: 6),
                        KafkaTopicPartitionOffset(topic: topic, partition: 4, offset: 0),
                    ])
            }
        }
        #expect(unknown?.code == KafkaError.unknownTopicOrPartition)
        #expect(try await admin.committedOffsets(group: group, topic: topic, partitions: 4) == [:])

        try await withHangGuard("committing") {
            try await admin.commitOffsets(
                group: group,
                offsets: [KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: 6)]
                    + others.map { KafkaTopicPartitionOffset(topic: topic, partition: $0, offset: .end) }
            )
        }
        var expected: [Int32: Int64] = [partition: 6]
        for other in others { expected[other] = 0 }
        #expect(
            try await withHangGuard("reading offsets") {
                try await admin.committedOffsets(group: group, topic: topic, partitions: 4)
            } == expected)
        await admin.close()

        // offsetReset .earliest: without the committed offsets this consumer would start at 0.
        let consumer = try KafkaTestBroker.consumer(group: group, topic: topic, offsetReset: .earliest)
        let received = try await KafkaTestBroker.receive(4, from: consumer)
        await consumer.shutdown()
        #expect(received.map { String(decoding: $0.value, as: UTF8.self) } == ["6", "7", "8", "9"])
        #expect(received.map(\.offset) == Array(reports.map(\.offset)[6...]))
    }

    @Test("The broker refuses commits from outside a group with a live member")
    func commitRefusedWhileMembersLive() async throws {
        let topic = KafkaTestBroker.uniqueTopic("admin-live")
        let group = KafkaTestBroker.uniqueGroup("admin-live")
        _ = try await Self.send(topic, key: "k", ["0", "1", "2"])
        let admin = try Self.admin()
        let describesGroups = try await Self.brokerDescribesGroups(admin)

        // Once a record arrived, the consumer is a member with partitions assigned.
        let consumer = try KafkaTestBroker.consumer(group: group, topic: topic)
        let first = try await KafkaTestBroker.receive(1, from: consumer)
        try await consumer.commit(first[0])
        let offsets = (0..<Int32(4)).map { KafkaTopicPartitionOffset(topic: topic, partition: $0, offset: .beginning) }

        let live = await #expect(throws: KafkaError.self) {
            try await withHangGuard("committing") { try await admin.commitOffsets(group: group, offsets: offsets) }
        }
        #expect(live?.code == KafkaError.unknownMemberId)
        await consumer.shutdown()

        let committed = try await withHangGuard("reading offsets") {
            try await admin.committedOffsets(group: group, topic: topic, partitions: 4)
        }
        #expect(committed == [first[0].partition: first[0].offset + 1], "the refused commit changed nothing")

        // After the member left: a real broker accepts (the group is Empty); the mock keeps refusing
        // for any group that has had a member.
        if describesGroups {
            try await withHangGuard("committing") { try await admin.commitOffsets(group: group, offsets: offsets) }
            #expect(
                try await admin.committedOffsets(group: group, topic: topic, partitions: 4) == [0: 0, 1: 0, 2: 0, 3: 0])
        } else {
            let left = await #expect(throws: KafkaError.self) {
                try await withHangGuard("committing") { try await admin.commitOffsets(group: group, offsets: offsets) }
            }
            #expect(left?.code == KafkaError.unknownMemberId)
        }
        await admin.close()
    }

    // MARK: - Groups

    @Test("groups() shows a live consumer's group, then Empty after it left (unsupported on the mock)")
    func groupsShowsMembers() async throws {
        let topic = KafkaTestBroker.uniqueTopic("admin-groups")
        let group = KafkaTestBroker.uniqueGroup("admin-groups")
        _ = try await Self.send(topic, key: "k", ["0"])
        let admin = try Self.admin()
        let consumer = try KafkaTestBroker.consumer(group: group, topic: topic)
        _ = try await KafkaTestBroker.receive(1, from: consumer)

        guard try await Self.brokerDescribesGroups(admin) else {
            // librdkafka's mock cluster: no ListGroups/DescribeGroups.
            let error = await #expect(throws: KafkaError.self) {
                try await withHangGuard("describing") { try await admin.group(named: group) }
            }
            #expect(error?.code == KafkaError.unsupportedFeature)
            await consumer.shutdown()
            await admin.close()
            return
        }

        let live = try await withHangGuard("listing groups") { try await admin.groups() }
        let entry = try #require(live.first { $0.name == group })
        #expect(entry.memberCount >= 1)
        #expect(entry.state == "Stable")
        #expect(live.map(\.name) == live.map(\.name).sorted())
        #expect(try await admin.group(named: group) == entry)

        await consumer.shutdown()
        // LeaveGroup is sent by shutdown; wait (hang-guarded) until the broker shows the group Empty.
        let empty = try await withHangGuard("waiting for Empty") {
            while true {
                if let info = try await admin.group(named: group), info.state == "Empty" { return info }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        #expect(empty.memberCount == 0)
        #expect(try await admin.group(named: KafkaTestBroker.uniqueGroup("admin-nobody")) == nil)
        await admin.close()
    }
}
