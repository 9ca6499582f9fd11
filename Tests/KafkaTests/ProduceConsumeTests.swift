import Foundation
import SNSKafka
import Testing

@Suite("Produce and consume")
struct ProduceConsumeTests {
    @Test("A message with key and headers comes back unchanged in a fresh group")
    func roundTrip() async throws {
        let topic = KafkaTestBroker.uniqueTopic("roundtrip")
        let producer = try KafkaTestBroker.producer()
        let headers = [
            KafkaHeader(key: "event-type", string: "PostCreated"),
            KafkaHeader(key: "binary", value: [0, 1, 2, 255]),
            KafkaHeader(key: "empty", value: []),
        ]
        let sent = KafkaOutgoingMessage(topic: topic, key: "user-42".bytes, value: #"{"id":1}"#.bytes, headers: headers)
        let report = try await withHangGuard("sending") { try await producer.send(sent) }
        #expect(report.topic == topic)
        #expect(report.offset >= 0)

        let consumer = try KafkaTestBroker.consumer(group: KafkaTestBroker.uniqueGroup("roundtrip"), topic: topic)
        let received = try await KafkaTestBroker.receive(1, from: consumer)
        await consumer.shutdown()
        await producer.shutdown()

        let message = try #require(received.first)
        #expect(message.topic == topic)
        #expect(message.partition == report.partition)
        #expect(message.offset == report.offset)
        #expect(message.key == sent.key)
        #expect(message.value == sent.value)
        #expect(message.headers == headers)
        #expect(message.headers.first?.stringValue == "PostCreated")
        #expect(message.timestamp != nil)
    }

    @Test("A batch of 100 messages with one key is delivered and consumed in order")
    func batchKeepsOrder() async throws {
        let topic = KafkaTestBroker.uniqueTopic("order")
        let producer = try KafkaTestBroker.producer()
        let batch = (0..<100).map {
            KafkaOutgoingMessage(topic: topic, key: "same-key".bytes, value: String($0).bytes)
        }
        let reports = try await withHangGuard("sending") { try await producer.send(batch) }
        #expect(reports.count == 100)
        #expect(Set(reports.map(\.partition)).count == 1)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.offset + 1 == $1.offset })

        let consumer = try KafkaTestBroker.consumer(group: KafkaTestBroker.uniqueGroup("order"), topic: topic)
        let received = try await KafkaTestBroker.receive(100, from: consumer)
        await consumer.shutdown()
        await producer.shutdown()

        #expect(received.map { String(decoding: $0.value, as: UTF8.self) } == (0..<100).map(String.init))
        #expect(received.map(\.offset) == reports.map(\.offset))
    }

    @Test("The readiness probe sees the broker")
    func brokerReachable() async throws {
        let producer = try KafkaTestBroker.producer()
        let reachable = try await withHangGuard("probing") { await producer.isBrokerReachable(timeout: .seconds(5)) }
        #expect(reachable)
        await producer.shutdown()
        #expect(await producer.isBrokerReachable(timeout: .seconds(1)) == false)
    }
}
