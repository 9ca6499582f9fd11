import SNSKafka
import Testing

@Suite("Commits")
struct CommitTests {
    @Test("A new consumer in the same group resumes after the committed offset")
    func resumesAfterCommit() async throws {
        let topic = KafkaTestBroker.uniqueTopic("commit")
        let group = KafkaTestBroker.uniqueGroup("commit")
        let producer = try KafkaTestBroker.producer()
        let batch = (0..<10).map { KafkaOutgoingMessage(topic: topic, key: "k".bytes, value: String($0).bytes) }
        let reports = try await withHangGuard("sending") { try await producer.send(batch) }
        await producer.shutdown()

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
}
