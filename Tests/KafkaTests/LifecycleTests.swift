import Foundation
import SNSKafka
import Testing

@Suite("Lifecycle and failures")
struct LifecycleTests {
    @Test("shutdown() ends a next() that is waiting for messages")
    func shutdownUnblocksNext() async throws {
        let topic = KafkaTestBroker.uniqueTopic("idle")
        let producer = try KafkaTestBroker.producer()
        _ = try await withHangGuard("sending") {
            try await producer.send(KafkaOutgoingMessage(topic: topic, key: nil, value: "only".bytes))
        }
        await producer.shutdown()

        // Once the only message arrived the consumer is a group member with partitions assigned,
        // and the next next() keeps polling: nothing else will ever arrive.
        let consumer = try KafkaTestBroker.consumer(group: KafkaTestBroker.uniqueGroup("idle"), topic: topic)
        _ = try await KafkaTestBroker.receive(1, from: consumer)
        let reader = Task {
            var count = 0
            for try await _ in consumer.messages { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(300))
        try await withHangGuard("shutting down", seconds: 15) { await consumer.shutdown() }
        let count = try await withHangGuard("ending the sequence", seconds: 5) { try await reader.value }
        #expect(count == 0)
        // Idempotent.
        await consumer.shutdown()
        for try await _ in consumer.messages {
            Issue.record("a shut-down consumer must not deliver messages")
        }
    }

    @Test("Cancelling the iterating task ends the sequence")
    func cancellationEndsSequence() async throws {
        let topic = KafkaTestBroker.uniqueTopic("cancel")
        let consumer = try KafkaTestBroker.consumer(group: KafkaTestBroker.uniqueGroup("cancel"), topic: topic)
        let reader = Task {
            var count = 0
            for try await _ in consumer.messages { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(300))
        reader.cancel()
        let count = try await withHangGuard("ending the sequence", seconds: 5) { try await reader.value }
        #expect(count == 0)
        await consumer.shutdown()
    }

    @Test("A producer without a reachable broker fails its send within message.timeout.ms")
    func unreachableBrokerFails() async throws {
        var logger = KafkaTestBroker.logger
        logger.logLevel = .critical  // connection-refused noise
        let producer = try KafkaProducer(
            configuration: KafkaConfiguration(
                bootstrapServers: "127.0.0.1:1", clientId: "kafka-tests-unreachable",
                properties: ["message.timeout.ms": "2000"]
            ),
            logger: logger
        )
        let error = try await withHangGuard("waiting for the delivery failure") { () -> KafkaError? in
            do {
                _ = try await producer.send(KafkaOutgoingMessage(topic: "test.unreachable", key: nil, value: "x".bytes))
                return nil
            } catch let error as KafkaError {
                return error
            }
        }
        #expect(error?.code == KafkaError.messageTimedOut, "\(String(describing: error))")
        #expect(await producer.isBrokerReachable(timeout: .milliseconds(500)) == false)
        try await withHangGuard("shutting down") { await producer.shutdown() }

        await #expect(throws: KafkaError.self) {
            try await producer.send(KafkaOutgoingMessage(topic: "test.unreachable", key: nil, value: "x".bytes))
        }
    }
}
