import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSTestSupport
import ServiceLifecycle
import Synchronization
import Testing

@testable import SNSPlatform

/// A payload private to these tests, on the (otherwise idle) media topic, keyed per test run.
struct Probe: EventPayload, Equatable {
    static let eventType = EventType.mediaStored
    var sequence: Int
    var run: String
}

@Suite("Transactional outbox and relay")
struct OutboxRelayTests {
    /// Writes `count` events for `aggregate` in separate committed transactions.
    func write(_ platform: TestPlatform, run: String, aggregate: String, range: Range<Int>) async throws -> Set<UUID> {
        var ids = Set<UUID>()
        for sequence in range {
            let envelope = try await platform.postgres.withTransaction(logger: TestEnvironment.logger) { connection in
                try await platform.outbox.append(
                    Probe(sequence: sequence, run: run), aggregateId: aggregate,
                    trace: TraceContext(
                        requestId: "req-\(sequence)",
                        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
                    on: connection, logger: TestEnvironment.logger)
            }
            ids.insert(envelope.eventId)
        }
        return ids
    }

    /// This run's probes; other traffic on the topic (other tests, poison messages) is skipped.
    func probes(_ messages: [KafkaConsumerMessage], run: String) -> [EventEnvelope<Probe>] {
        messages.compactMap { message in
            guard let envelope = try? EventCoding.decoder().decode(EventEnvelope<Probe>.self, from: Data(message.value))
            else { return nil }
            return envelope.payload.run == run ? envelope : nil
        }
    }

    @Test func relaysExactlyTheCommittedEventsInOrderAcrossACrashAndRestart() async throws {
        try await TestPlatform.with { platform in
            let run = TestEnvironment.unique("run")
            let aggregate = "agg-\(run)"
            var committed = try await write(platform, run: run, aggregate: aggregate, range: 0..<20)

            // A transaction that rolls back must never be published.
            struct Abort: Error {}
            _ = try? await platform.postgres.withTransaction(logger: TestEnvironment.logger) { connection in
                try await platform.outbox.append(
                    Probe(sequence: -1, run: run), aggregateId: aggregate, trace: TraceContext(requestId: nil),
                    on: connection, logger: TestEnvironment.logger)
                throw Abort()
            }

            // Relay #1 sends a batch and "dies" after the broker acknowledged but before it committed.
            let crashing = OutboxRelay(
                outbox: platform.outbox, client: platform.postgres, producer: platform.producer,
                notifications: nil, logger: TestEnvironment.logger, batchSize: 7,
                afterSend: { throw CancellationError() })
            await #expect(throws: CancellationError.self) { try await crashing.publishBatch() }
            let pendingAfterCrash = try await pendingCount(platform)
            #expect(pendingAfterCrash == 20, "nothing may be marked published that was not committed")

            // More writes arrive while no relay runs; then a fresh relay takes over.
            committed.formUnion(try await write(platform, run: run, aggregate: aggregate, range: 20..<30))
            let relay = OutboxRelay(
                outbox: platform.outbox, client: platform.postgres, producer: platform.producer,
                notifications: nil, logger: TestEnvironment.logger, batchSize: 7)
            var published = 0
            while case .published(let count) = try await relay.publishBatch() { published += count }
            #expect(published == 30)
            #expect(try await pendingCount(platform) == 0)

            let expected = committed
            let messages = try await platform.collect(topic: Topic.media) { seen in
                let ours = self.probes(seen, run: run)
                return Set(ours.map(\.eventId)) == expected && ours.last?.payload.sequence == 29
            }
            let ours = probes(messages, run: run)
            // Exactly the committed events (the crashed batch shows up twice: at-least-once, consumers dedupe).
            #expect(Set(ours.map(\.eventId)) == committed)
            #expect(!ours.contains { $0.payload.sequence == -1 })
            // In commit order on one partition, keyed by the aggregate id, with the envelope headers.
            let firstDelivery = ours.reduce(into: [Int]()) { seq, e in
                if !seq.contains(e.payload.sequence) { seq.append(e.payload.sequence) }
            }
            #expect(firstDelivery == Array(0..<30))
            let ourMessages = messages.filter {
                (try? EventCoding.decoder().decode(EventEnvelope<Probe>.self, from: Data($0.value)))?.payload.run == run
            }
            #expect(Set(ourMessages.map(\.partition)).count == 1)
            #expect(ourMessages.allSatisfy { $0.key == Array(aggregate.utf8) })
            let firstMessage = try #require(ourMessages.first)
            let headers = Dictionary(
                firstMessage.headers.map { ($0.key, $0.stringValue ?? "") }, uniquingKeysWith: { a, _ in a })
            #expect(headers[EventHeader.eventType] == "media-stored")
            #expect(headers[EventHeader.requestId] == "req-0")
            #expect(headers[EventHeader.traceparent] == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
            #expect(headers[EventHeader.eventId] == ours.first?.eventId.uuidString.lowercased())
        }
    }

    @Test func onlyOneOfSeveralRelayReplicasPublishesAtATime() async throws {
        try await TestPlatform.with { platform in
            let run = TestEnvironment.unique("rep")
            _ = try await write(platform, run: run, aggregate: "agg-\(run)", range: 0..<5)
            // Replica A holds the relay lock inside its batch (paused after send); replica B must stand by.
            let gate = AsyncGate()
            let replicaA = OutboxRelay(
                outbox: platform.outbox, client: platform.postgres, producer: platform.producer,
                notifications: nil, logger: TestEnvironment.logger, afterSend: { try await gate.pass() })
            let replicaB = OutboxRelay(
                outbox: platform.outbox, client: platform.postgres, producer: platform.producer,
                notifications: nil, logger: TestEnvironment.logger)
            async let first = replicaA.publishBatch()
            try await gate.waitUntilArrived()
            #expect(try await replicaB.publishBatch() == .standby)
            gate.release()
            #expect(try await first == .published(5))
            #expect(try await replicaB.publishBatch() == .idle)
        }
    }

    /// Decision 0035: the relay pauses only after a batch of more than one event, and only with a pause configured.
    @Test func theRelayPausesOnlyAfterABusyBatch() {
        let gather = Duration.milliseconds(3)
        #expect(OutboxRelay.pause(after: .published(2), gather: gather) == gather)
        #expect(OutboxRelay.pause(after: .published(150), gather: gather) == gather)
        #expect(OutboxRelay.pause(after: .published(1), gather: gather) == nil, "a lone event is never held back")
        #expect(OutboxRelay.pause(after: .idle, gather: gather) == nil)
        #expect(OutboxRelay.pause(after: .standby, gather: gather) == nil)
        #expect(OutboxRelay.pause(after: .published(2), gather: .zero) == nil, "0 turns the pause off")
    }

    /// With a pause after busy batches (decision 0035), every committed event is still published, in commit order: a
    /// first batch of ten (then the pause), three more written while it runs, and a later lone one.
    @Test func aRelayThatLetsEventsGatherPublishesEveryEventInOrder() async throws {
        try await TestPlatform.with { platform in
            let run = TestEnvironment.unique("gather")
            let aggregate = "agg-\(run)"
            var committed = try await write(platform, run: run, aggregate: aggregate, range: 0..<10)
            let relay = OutboxRelay(
                outbox: platform.outbox, client: platform.postgres, producer: platform.producer,
                notifications: nil, logger: TestEnvironment.logger, pollInterval: .milliseconds(100),
                gather: .milliseconds(200))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await relay.run() }
                committed.formUnion(try await write(platform, run: run, aggregate: aggregate, range: 10..<13))
                try await eventually("the first thirteen published") { try await self.pendingCount(platform) == 0 }
                committed.formUnion(try await write(platform, run: run, aggregate: aggregate, range: 13..<14))
                let expected = committed
                let messages = try await platform.collect(topic: Topic.media) { seen in
                    Set(self.probes(seen, run: run).map(\.eventId)) == expected
                }
                let sequences = probes(messages, run: run).map(\.payload.sequence)
                #expect(sequences == Array(0..<14))
                group.cancelAll()
            }
        }
    }

    @Test func relayServiceWakesOnNotifyWithoutPolling() async throws {
        try await TestPlatform.with { platform in
            let run = TestEnvironment.unique("svc")
            // A long poll interval, and the events are written only once the relay has done its start-up batch
            // and its LISTEN is in place: delivery can then only come from NOTIFY.
            let notifications = try TestEnvironment.notificationListener()
            let relay = OutboxRelay(
                outbox: platform.outbox, client: platform.postgres, producer: platform.producer,
                notifications: notifications, logger: TestEnvironment.logger, pollInterval: .seconds(3600))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await notifications.run() }
                group.addTask { try await relay.run() }
                let channel = platform.outbox.notificationChannel
                var listening = false
                for _ in 0..<300 where !listening {  // hang guard: 30 s
                    let rows = try await platform.postgres.query(
                        "SELECT count(*)::int FROM pg_stat_activity WHERE state = 'idle' AND query ILIKE \("LISTEN%" + channel + "%")",
                        logger: TestEnvironment.logger)
                    for try await count in rows.decode(Int.self) { listening = count > 0 }
                    if !listening { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(listening, "the relay holds a LISTEN on \(channel)")
                // let the post-LISTEN catch-up batch finish (finds nothing)
                try await Task.sleep(for: .milliseconds(200))
                let committed = try await write(platform, run: run, aggregate: "agg-\(run)", range: 0..<3)
                let messages = try await platform.collect(topic: Topic.media) { seen in
                    Set((self.probes(seen, run: run)).map(\.eventId)) == committed
                }
                #expect(Set(probes(messages, run: run).map(\.eventId)) == committed)
                group.cancelAll()
            }
        }
    }

    /// After a partial batch the relay waits instead of reading again at once: a row committed while that batch was
    /// being sent must still be published, by its own notification (the poll interval is an hour). The relay starts
    /// on an empty outbox and is idle in its wait, its LISTEN's catch-up signal consumed, before the first row is
    /// written: nothing but the second row's notification can then wake it for the second row.
    @Test func aRowCommittedDuringAPartialBatchIsPublishedByItsNotification() async throws {
        try await TestPlatform.with { platform in
            let run = TestEnvironment.unique("mid")
            let gate = AsyncGate()
            let firstBatch = Mutex(true)
            let notifications = try TestEnvironment.notificationListener()
            let relay = OutboxRelay(
                outbox: platform.outbox, client: platform.postgres, producer: platform.producer,
                notifications: notifications, logger: TestEnvironment.logger, pollInterval: .seconds(3600),
                afterSend: { if firstBatch.withLock({ $0 }) { try await gate.pass() } })
            #expect(try await pendingCount(platform) == 0)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await notifications.run() }
                group.addTask { try await relay.run() }
                // LISTEN is up once its catch-up signal came; idle once it waits with nothing pending.
                try await eventually("the relay listens and waits") {
                    relay.wakeup.signalCount >= 1 && relay.wakeup.isWaiting
                }
                let first = try await write(platform, run: run, aggregate: "agg-\(run)", range: 0..<1)
                try await gate.waitUntilArrived()  // woken by the first row's notification; sent, not yet marked
                firstBatch.withLock { $0 = false }
                let second = try await write(platform, run: run, aggregate: "agg-\(run)-b", range: 1..<2)
                gate.release()
                let committed = first.union(second)
                let messages = try await platform.collect(topic: Topic.media) { seen in
                    Set(self.probes(seen, run: run).map(\.eventId)) == committed
                }
                #expect(Set(probes(messages, run: run).map(\.eventId)) == committed)
                try await eventually("both rows marked published") { try await self.pendingCount(platform) == 0 }
                group.cancelAll()
            }
        }
    }

    /// Decision 0036: while the local relay leads, a request's write leaves the relay's `NOTIFY` out and its ticket
    /// wakes the relay in-process once the transaction committed. The relay here has no `LISTEN` at all and polls
    /// once an hour, so only that wake-up can publish the row.
    @Test func aWriteWhileTheLocalRelayLeadsWakesItWithoutNotify() async throws {
        try await TestPlatform.with { platform in
            let run = TestEnvironment.unique("nudge")
            let relay = OutboxRelay(
                outbox: platform.outbox, client: platform.postgres, producer: platform.producer,
                notifications: nil, logger: TestEnvironment.logger, pollInterval: .seconds(3600))
            #expect(!platform.outbox.localRelay.isLeading, "no batch yet: writes notify")
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await relay.run() }
                try await eventually("the relay's first batch took the lock and it waits") {
                    platform.outbox.localRelay.isLeading && relay.wakeup.isWaiting
                }
                let ticket = platform.outbox.readYourWrites()
                let envelope = try await platform.postgres.withTransaction(logger: TestEnvironment.logger) {
                    connection in
                    try await platform.outbox.append(
                        Probe(sequence: 0, run: run), aggregateId: "agg-\(run)", trace: TraceContext(requestId: nil),
                        awaitedBy: ticket, on: connection, logger: TestEnvironment.logger)
                }
                #expect(try await pendingCount(platform) == 1, "nothing woke the relay before the commit's wake-up")
                await ticket.wait(logger: TestEnvironment.logger)
                let messages = try await platform.collect(topic: Topic.media) { seen in
                    self.probes(seen, run: run).map(\.eventId) == [envelope.eventId]
                }
                #expect(probes(messages, run: run).map(\.eventId) == [envelope.eventId])
                group.cancelAll()
            }
        }
    }

    /// Decision 0036, two replicas: A believes it leads, so its writer leaves the `NOTIFY` out and wakes A; but B holds
    /// the relay lock (in the middle of a batch), so A stands by and sends the `NOTIFY` itself, which wakes B for the
    /// row (B polls once an hour).
    @Test func aWokenRelayThatFindsTheLockHeldWakesTheReplicaThatHoldsIt() async throws {
        try await TestPlatform.with { platform in
            let run = TestEnvironment.unique("fwd")
            let outboxA = Outbox(schema: platform.schema, producerName: "platform-test")
            let outboxB = Outbox(schema: platform.schema, producerName: "platform-test")
            let gate = AsyncGate()
            let holdB = Mutex(false)
            let notifications = try TestEnvironment.notificationListener()
            let replicaA = OutboxRelay(
                outbox: outboxA, client: platform.postgres, producer: platform.producer, notifications: nil,
                logger: TestEnvironment.logger, pollInterval: .seconds(3600))
            let replicaB = OutboxRelay(
                outbox: outboxB, client: platform.postgres, producer: platform.producer,
                notifications: notifications, logger: TestEnvironment.logger, pollInterval: .seconds(3600),
                afterSend: { if holdB.withLock({ $0 }) { try await gate.pass() } })
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await notifications.run() }
                group.addTask { try await replicaB.run() }
                try await eventually("B listens and waits") {
                    replicaB.wakeup.signalCount >= 1 && replicaB.wakeup.isWaiting
                }
                // B takes the lock for a row of its own and is held after sending it.
                holdB.withLock { $0 = true }
                var committed = try await write(platform, run: run, aggregate: "agg-\(run)", range: 0..<1)
                try await gate.waitUntilArrived()
                holdB.withLock { $0 = false }
                // A's writer, while A believes it leads.
                outboxA.localRelay.setLeading(true)
                let ticket = outboxA.readYourWrites()
                let envelope = try await platform.postgres.withTransaction(logger: TestEnvironment.logger) {
                    connection in
                    try await outboxA.append(
                        Probe(sequence: 1, run: run), aggregateId: "agg-\(run)-a", trace: TraceContext(requestId: nil),
                        awaitedBy: ticket, on: connection, logger: TestEnvironment.logger)
                }
                committed.insert(envelope.eventId)
                await ticket.wait(logger: TestEnvironment.logger)
                #expect(try await replicaA.publishBatch() == .standby)
                #expect(!outboxA.localRelay.isLeading, "after standing by, A's writers notify again")
                gate.release()
                let expected = committed
                let messages = try await platform.collect(topic: Topic.media) { seen in
                    Set(self.probes(seen, run: run).map(\.eventId)) == expected
                }
                #expect(Set(probes(messages, run: run).map(\.eventId)) == committed)
                try await eventually("both rows marked published") { try await self.pendingCount(platform) == 0 }
                group.cancelAll()
            }
        }
    }

    /// Decision 0036: a relay that stops (SIGTERM) while it owes its writers a wake-up sends the `NOTIFY` they left
    /// out, so whichever replica takes over reads their rows at once.
    @Test func aRelayThatStopsOwingAWakeUpSendsTheNotify() async throws {
        try await TestPlatform.with { platform in
            let heard = Mutex(0)
            let listening = StartGate()
            let notifications = try TestEnvironment.notificationListener()
            notifications.subscribe(
                channel: platform.outbox.notificationChannel, listening: { listening.open() },
                received: { _ in heard.withLock { $0 += 1 } })
            let relay = OutboxRelay(
                outbox: platform.outbox, client: platform.postgres, producer: platform.producer,
                notifications: nil, logger: TestEnvironment.logger, pollInterval: .seconds(3600))
            let services = ServiceGroup(
                configuration: .init(services: [relay], gracefulShutdownSignals: [], logger: TestEnvironment.logger))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await notifications.run() }
                try await listening.wait()
                group.addTask { try await services.run() }
                try await eventually("the relay leads and waits") {
                    platform.outbox.localRelay.isLeading && relay.wakeup.isWaiting
                }
                #expect(heard.withLock { $0 } == 0)
                platform.outbox.localRelay.keepNudged()  // a wake-up owed (as after a failed batch)
                await services.triggerGracefulShutdown()
                try await eventually("the stopping relay notified") { heard.withLock { $0 } == 1 }
                #expect(!platform.outbox.localRelay.isLeading)
                group.cancelAll()
            }
        }
    }

    func pendingCount(_ platform: TestPlatform) async throws -> Int {
        let rows = try await platform.postgres.query(
            "SELECT count(*)::int FROM \(table: platform.schema, "outbox") WHERE published_at IS NULL",
            logger: TestEnvironment.logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }
}

/// Lets a test hold a relay in the middle of its batch: the relay calls `pass()`, the test waits for it to
/// arrive, checks something, then releases it.
final class AsyncGate: Sendable {
    let arrived = StartGate()
    let released = StartGate()
    func pass() async throws { arrived.open(); try await released.wait() }
    func waitUntilArrived() async throws { try await arrived.wait() }
    func release() { released.open() }
}
