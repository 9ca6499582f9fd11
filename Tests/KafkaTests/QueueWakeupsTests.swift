import SNSTestSupport
import Testing

@testable import SNSKafka

/// The consumer's poller waits for librdkafka to say that its queue got something (`KafkaQueueWakeups`).
@Suite("Consumer wake-ups")
struct QueueWakeupsTests {
    @Test("A signal before the wait is kept for it, once")
    func signalBeforeWaitIsKept() async throws {
        let wakeups = KafkaQueueWakeups()
        wakeups.signal()
        wakeups.signal()  // still one pending signal, not two
        #expect(wakeups.isPending)
        try await withHangGuard("waiting after a signal") { await wakeups.wait() }
        #expect(!wakeups.isPending)
    }

    @Test("A signal wakes a waiting poller and leaves nothing pending")
    func signalWakesTheWaiter() async throws {
        let wakeups = KafkaQueueWakeups()
        let waiting = Task { await wakeups.wait() }
        try await untilWaiting(wakeups)
        wakeups.signal()
        try await withHangGuard("waiting for the signal") { await waiting.value }
        #expect(!wakeups.isPending)
    }

    @Test("A tick wakes a waiting poller; without one it marks nothing")
    func tickWakesOnlyAWaiter() async throws {
        let wakeups = KafkaQueueWakeups()
        wakeups.tick()
        #expect(!wakeups.isPending)
        let waiting = Task { await wakeups.wait() }
        try await untilWaiting(wakeups)
        wakeups.tick()
        try await withHangGuard("waiting for the tick") { await waiting.value }
        #expect(!wakeups.isPending)
    }

    @Test("Cancelling the waiting task ends the wait")
    func cancellationEndsTheWait() async throws {
        let wakeups = KafkaQueueWakeups()
        let waiting = Task { await wakeups.wait() }
        try await untilWaiting(wakeups)
        waiting.cancel()
        try await withHangGuard("waiting after cancellation") { await waiting.value }
    }

    /// Returns once a poller waits on `wakeups` (hang guard: 30 s).
    private func untilWaiting(_ wakeups: KafkaQueueWakeups) async throws {
        try await withHangGuard("a poller to wait") {
            while !wakeups.isWaiting { await Task.yield() }
        }
    }

    @Test("Records reach a waiting consumer through librdkafka's queue events, not its periodic wake-up")
    func recordsWakeTheConsumer() async throws {
        let topic = KafkaTestBroker.uniqueTopic("wakeups")
        let producer = try KafkaTestBroker.producer()
        // A periodic wake-up of an hour: every batch below must come through the queue's events (the join's
        // rebalance, the fetched records), or the hang guard fails the test.
        let consumer = try KafkaTestBroker.consumer(
            group: KafkaTestBroker.uniqueGroup("wakeups"), topic: topic, wakeInterval: .seconds(3600))
        _ = try await withHangGuard("sending") {
            try await producer.send(KafkaOutgoingMessage(topic: topic, key: "k".bytes, value: "first".bytes))
        }
        let first = try await KafkaTestBroker.receive(1, from: consumer)
        // The consumer has drained its queue and waits again when the second record is sent.
        let second = Task { try await KafkaTestBroker.receive(1, from: consumer) }
        _ = try await withHangGuard("sending") {
            try await producer.send(KafkaOutgoingMessage(topic: topic, key: "k".bytes, value: "second".bytes))
        }
        let received = try await second.value
        await consumer.shutdown()
        await producer.shutdown()
        #expect(first.map { String(decoding: $0.value, as: UTF8.self) } == ["first"])
        #expect(received.map { String(decoding: $0.value, as: UTF8.self) } == ["second"])
    }

    @Test("Shutting down ends a consumer's wait for records at once")
    func shutdownEndsTheWait() async throws {
        let topic = KafkaTestBroker.uniqueTopic("wakeups-shutdown")
        let producer = try KafkaTestBroker.producer()
        let consumer = try KafkaTestBroker.consumer(
            group: KafkaTestBroker.uniqueGroup("wakeups-shutdown"), topic: topic, wakeInterval: .seconds(3600))
        // One record first: the consumer has then subscribed and waits on librdkafka's events, not in a poll.
        _ = try await withHangGuard("sending") {
            try await producer.send(KafkaOutgoingMessage(topic: topic, key: "k".bytes, value: "only".bytes))
        }
        _ = try await KafkaTestBroker.receive(1, from: consumer)
        let reading = Task { try await consumer.nextBatch(limit: 10) }
        try await withHangGuard("the consumer to wait") {
            while !consumer.isWaitingForRecords { await Task.yield() }
        }
        // With an hour's periodic wake-up, only the close's own signal can end this wait in time.
        await consumer.shutdown()
        let batch = try await withHangGuard("waiting for the reader to end") { try await reading.value }
        await producer.shutdown()
        #expect(batch == nil)
    }
}
