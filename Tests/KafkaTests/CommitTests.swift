import SNSKafka
import Testing

@Suite("Commits")
struct CommitTests {
    /// "0" … "9" under one key (so to one partition, in order).
    static func sendTen(to topic: String) async throws -> [KafkaDeliveryReport] {
        let producer = try KafkaTestBroker.producer()
        let batch = (0..<10).map { KafkaOutgoingMessage(topic: topic, key: "k".bytes, value: String($0).bytes) }
        let reports = try await withHangGuard("sending") { try await producer.send(batch) }
        await producer.shutdown()
        return reports
    }

    @Test("A new consumer in the same group resumes after the committed offset")
    func resumesAfterCommit() async throws {
        let topic = KafkaTestBroker.uniqueTopic("commit")
        let group = KafkaTestBroker.uniqueGroup("commit")
        let reports = try await Self.sendTen(to: topic)

        let first = try KafkaTestBroker.consumer(group: group, topic: topic)
        let firstPass = try await KafkaTestBroker.receive(10, from: first)
        #expect(firstPass.map(\.offset) == reports.map(\.offset))
        // Messages 0...4 are processed; 5...9 are not.
        try await first.commit(firstPass[4])
        await first.shutdown()
        await #expect(throws: KafkaError.self) { try await first.commit(firstPass[5]) }

        let second = try KafkaTestBroker.consumer(group: group, topic: topic)
        let secondPass = try await KafkaTestBroker.receive(5, from: second)
        await second.shutdown()
        #expect(secondPass.map { String(decoding: $0.value, as: UTF8.self) } == ["5", "6", "7", "8", "9"])
        #expect(secondPass.map(\.offset) == Array(reports.map(\.offset)[5...]))
    }

    /// `store` costs no round trip: librdkafka commits what was stored when the consumer closes (and every
    /// `auto.commit.interval.ms` while it runs), and the next member resumes after it (decision 0030).
    @Test("Stored offsets are committed at close, and on their own while the consumer runs")
    func storedOffsetsAreCommitted() async throws {
        let topic = KafkaTestBroker.uniqueTopic("store")
        let group = KafkaTestBroker.uniqueGroup("store")
        let reports = try await Self.sendTen(to: topic)
        let partition = reports[0].partition
        let admin = try KafkaAdmin(
            configuration: KafkaTestBroker.configuration("store-admin"), logger: KafkaTestBroker.logger)

        let first = try KafkaTestBroker.consumer(group: group, topic: topic)
        let firstPass = try await KafkaTestBroker.receive(10, from: first)
        first.store(Array(firstPass[0...3]))
        // Stored on the next poll (the reading loop below polls every 100 ms, finding nothing), committed by
        // librdkafka's timer.
        let reading = Task { _ = try? await first.nextBatch(limit: 1) }
        try await withHangGuard("the periodic commit") {
            while try await admin.committedOffsets(group: group, topic: topic, partitions: partition + 1)[partition]
                != firstPass[3].offset + 1
            {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        reading.cancel()
        await reading.value
        first.store(Array(firstPass[4...4]))
        await first.shutdown()  // waits at most 3 s for the close; its commit may land after that on a loaded machine
        try await withHangGuard("the close's commit") {
            while try await admin.committedOffsets(group: group, topic: topic, partitions: partition + 1)[partition]
                != firstPass[4].offset + 1
            {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        await admin.close()

        let second = try KafkaTestBroker.consumer(group: group, topic: topic)
        let secondPass = try await KafkaTestBroker.receive(5, from: second)
        await second.shutdown()
        #expect(secondPass.map { String(decoding: $0.value, as: UTF8.self) } == ["5", "6", "7", "8", "9"])
    }
}
