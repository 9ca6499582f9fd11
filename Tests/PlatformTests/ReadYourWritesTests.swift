import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSTestSupport
import Testing

@testable import SNSPlatform

/// A payload whose type the read-your-writes table awaits (`post-liked` → social's projection).
struct AwaitedProbe: EventPayload {
    static let eventType = EventType.postLiked
    var sequence: Int
}

/// The read-your-writes mechanism (decision 0013) against the real database: the outbox marks awaited events,
/// a consumer announces what it applied in its own transaction, and a barrier resumes the writer on that
/// announcement — or gives up at its bound, naming the projection that was late.
@Suite("Read-your-writes barrier")
struct ReadYourWritesBarrierTests {
    /// The producer of the tests' events: the barriers listen on its channel.
    static let writer = "ryw-test"

    /// Runs a barrier (on a LISTEN connection of its own) for the duration of `body`, once it listens.
    func withBarrier(timeout: Duration, _ body: @Sendable (ProjectionBarrier) async throws -> Void) async throws {
        let notifications = try TestEnvironment.notificationListener()
        let barrier = ProjectionBarrier(
            writer: Self.writer, timeout: timeout, notifications: notifications, logger: TestEnvironment.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifications.run() }
            try await eventually("the barrier listens") { barrier.isListening }
            try await body(barrier)
            group.cancelAll()
        }
    }

    func announce(_ group: String, _ eventId: UUID) async throws {
        try await TestEnvironment.withDatabase { db in
            try await db.query(
                "SELECT pg_notify(\(ReadYourWrites.channel(writer: Self.writer)), \(ReadYourWrites.announcement(group: group, eventId: eventId)))",
                logger: TestEnvironment.logger)
        }
    }

    @Test func aWaitEndsWhenEveryExpectedGroupHasAnnouncedTheEvent() async throws {
        try await withBarrier(timeout: .seconds(120)) { barrier in
            let eventId = UUID()
            barrier.expect(eventId, groups: ["g-a", "g-b"])
            async let late = barrier.wait(for: [eventId])
            try await announce("g-a", eventId)
            try await announce("unrelated", UUID())
            try await announce("g-b", eventId)
            #expect(await late.isEmpty)
        }
    }

    /// Announcements travel on the writing service's channel: a barrier does not hear another writer's. (Notifications
    /// reach a connection in commit order, so once the sentinel announced after them is heard, both were delivered or
    /// dropped.)
    @Test func aBarrierHearsOnlyItsOwnWritersAnnouncements() async throws {
        try await withBarrier(timeout: .seconds(120)) { barrier in
            let eventId = UUID(), sentinel = UUID()
            barrier.expect(eventId, groups: ["g-a", "g-b"])
            barrier.expect(sentinel, groups: ["g-s"])
            try await TestEnvironment.withDatabase { db in
                let other = ReadYourWrites.channel(writer: "another-service")
                try await db.query(
                    "SELECT pg_notify(\(other), \(ReadYourWrites.announcement(group: "g-a", eventId: eventId)))",
                    logger: TestEnvironment.logger)
            }
            try await announce("g-b", eventId)
            try await announce("g-s", sentinel)
            #expect(await barrier.wait(for: [sentinel]).isEmpty)
            #expect(barrier.outstanding(eventId) == ["g-a"])
            try await announce("g-a", eventId)
            #expect(await barrier.wait(for: [eventId]).isEmpty)
        }
    }

    @Test func aWaitGivesUpAtItsBoundAndNamesTheLateGroup() async throws {
        try await withBarrier(timeout: .milliseconds(300)) { barrier in
            let eventId = UUID()
            barrier.expect(eventId, groups: ["g-fast", "g-never"])
            try await announce("g-fast", eventId)
            // The late group is named; whether g-fast's announcement reached the barrier within the bound depends on
            // how busy the machine is, so it may be named too (a test never depends on timing).
            let late = await barrier.wait(for: [eventId])
            #expect(late.contains("g-never"))
            #expect(late.isSubset(of: ["g-fast", "g-never"]))
        }
    }

    @Test func theOutboxMarksOnlyAwaitedEventsAndTheConsumerAnnouncesThemWhenApplied() async throws {
        try await TestPlatform.with { platform in
            try await withBarrier(timeout: .seconds(120)) { barrier in
                let outbox = Outbox(schema: platform.schema, producerName: "ryw-test", barrier: barrier)
                let ticket = outbox.readYourWrites()
                let (awaited, plain, unawaitedType) = try await platform.postgres.transaction(
                    logger: TestEnvironment.logger
                ) { connection in
                    let awaited = try await outbox.append(
                        AwaitedProbe(sequence: 1), aggregateId: "a", trace: TraceContext(requestId: nil),
                        awaitedBy: ticket, on: connection, logger: TestEnvironment.logger)
                    let plain = try await outbox.append(
                        AwaitedProbe(sequence: 2), aggregateId: "a", trace: TraceContext(requestId: nil),
                        on: connection, logger: TestEnvironment.logger)
                    // No projection awaits media-stored: not marked, even with a ticket.
                    let unawaitedType = try await outbox.append(
                        Probe(sequence: 3, run: "ryw"), aggregateId: "a", trace: TraceContext(requestId: nil),
                        awaitedBy: ticket, on: connection, logger: TestEnvironment.logger)
                    return (awaited.eventId, plain.eventId, unawaitedType.eventId)
                }
                // The mark names the groups the writer waits for (so that only they announce it).
                var marked: [UUID: String] = [:]
                let rows = try await platform.postgres.query(
                    "SELECT event_id, headers ->> \(ReadYourWrites.awaitedHeader) FROM \(table: platform.schema, "outbox")",
                    logger: TestEnvironment.logger)
                for try await (id, value) in rows.decode((UUID, String?).self) { marked[id] = value ?? "" }
                let groups = ReadYourWrites.groups(awaiting: AwaitedProbe.eventType)
                #expect(marked == [awaited: groups.joined(separator: ","), plain: "", unawaitedType: ""])

                // A consumer applying the marked event announces it under its group name; the writer's wait for
                // that group then ends. (The table says social; here the group is the test consumer's.) The
                // unmarked one is applied too but never announced: a second barrier with a short bound, waiting
                // for it, reports the group as late.
                let group = TestEnvironment.unique("ryw-consumer-")
                let consumer = try IdempotentConsumer(
                    name: group, topics: [Topic.posts],
                    kafka: KafkaConfiguration(bootstrapServers: platform.brokers, clientId: group, properties: [:]),
                    client: platform.postgres, producer: platform.producer,
                    handler: ClosureEventHandler { _, _, _ in }, logger: TestEnvironment.logger)
                try await withBarrier(timeout: .milliseconds(300)) { short in
                    barrier.expect(awaited, groups: [group])
                    short.expect(plain, groups: [group])
                    let marker = [KafkaHeader(key: ReadYourWrites.awaitedHeader, string: "1")]
                    for (eventId, headers) in [(awaited, marker), (plain, [])] {
                        let envelope = EventEnvelope(
                            eventId: eventId, type: AwaitedProbe.eventType.rawValue, aggregateId: "a",
                            producer: "ryw-test", requestId: nil, payload: AwaitedProbe(sequence: 0))
                        let message = KafkaConsumerMessage(
                            topic: Topic.posts, partition: 0, offset: 0, key: Array("a".utf8),
                            value: Array(try EventCoding.encoder().encode(envelope)), headers: headers,
                            timestamp: nil)
                        #expect(try await consumer.process(message) == .applied)
                    }
                    #expect(await barrier.wait(for: [awaited]).isEmpty)
                    #expect(await short.wait(for: [plain]) == [group])
                }
                _ = ticket  // dropped unwaited: its registration is forgotten
            }
        }
    }

    /// The idempotency record and the announcements are one statement (`RecordProcessedEvents`): a batch announces
    /// every event awaited from its group, new or seen before, including a batch in which every event is a duplicate
    /// (nothing inserted); events not marked, or awaited from other groups only, are applied but not announced.
    @Test func aBatchAnnouncesTheEventsAwaitedFromItsGroupNewOrDuplicate() async throws {
        try await TestPlatform.with { platform in
            try await withBarrier(timeout: .seconds(120)) { barrier in
                let group = TestEnvironment.unique("ryw-batch-")
                let applied = AppliedEventIds()
                let consumer = try IdempotentConsumer(
                    name: group, topics: [Topic.posts],
                    kafka: KafkaConfiguration(bootstrapServers: platform.brokers, clientId: group, properties: [:]),
                    client: platform.postgres, producer: platform.producer,
                    handler: ClosureEventHandler { event, _, _ in await applied.add(event.metadata.eventId) },
                    logger: TestEnvironment.logger)
                // `awaitedBy`: the header's value (the awaited groups, or `1` for any), nil for no header.
                @Sendable func message(_ eventId: UUID, offset: Int64, awaitedBy: String?) throws
                    -> KafkaConsumerMessage
                {
                    let envelope = EventEnvelope(
                        eventId: eventId, type: AwaitedProbe.eventType.rawValue, aggregateId: "b",
                        producer: "ryw-test", requestId: nil, payload: AwaitedProbe(sequence: Int(offset)))
                    return KafkaConsumerMessage(
                        topic: Topic.posts, partition: 0, offset: offset, key: Array("b".utf8),
                        value: Array(try EventCoding.encoder().encode(envelope)),
                        headers: awaitedBy.map { [KafkaHeader(key: ReadYourWrites.awaitedHeader, string: $0)] } ?? [],
                        timestamp: nil)
                }
                let first = UUID(), second = UUID(), unmarked = UUID(), elsewhere = UUID()
                // Batch one: two awaited events (one naming this group among others, one with the old "any" value)
                // and an unmarked one, all new.
                barrier.expect(first, groups: [group])
                barrier.expect(second, groups: [group])
                let one = try [
                    message(first, offset: 0, awaitedBy: "other-group,\(group)"),
                    message(unmarked, offset: 1, awaitedBy: nil), message(second, offset: 2, awaitedBy: "1"),
                ]
                let (settledOne, outcomesOne) = await consumer.settle(one)
                #expect(settledOne.count == 3)
                #expect(outcomesOne == [.applied, .applied, .applied])
                #expect(await barrier.wait(for: [first, second]).isEmpty)
                // Batch two: the same awaited events again, both duplicates: nothing inserted, both announced.
                barrier.expect(first, groups: [group])
                barrier.expect(second, groups: [group])
                let (_, outcomesTwo) = await consumer.settle(
                    try [
                        message(first, offset: 0, awaitedBy: group), message(second, offset: 2, awaitedBy: group),
                    ])
                #expect(outcomesTwo == [.duplicate, .duplicate])
                #expect(await barrier.wait(for: [first, second]).isEmpty)
                #expect(await applied.ids == [first, unmarked, second])
                // Neither the unmarked event nor one awaited from another group only is announced by this group: a
                // short wait for each names the group as late.
                try await withBarrier(timeout: .milliseconds(300)) { short in
                    short.expect(unmarked, groups: [group])
                    short.expect(elsewhere, groups: [group])
                    let (_, outcomesThree) = await consumer.settle(
                        try [
                            message(unmarked, offset: 1, awaitedBy: nil),
                            message(elsewhere, offset: 3, awaitedBy: "other-group"),
                        ])
                    #expect(outcomesThree == [.duplicate, .applied])
                    #expect(await short.wait(for: [unmarked]) == [group])
                    #expect(await short.wait(for: [elsewhere]) == [group])
                }
            }
        }
    }
}

/// Announcements by datagram (decision 0050): a writer whose barrier has a socket names it in the events it marks, and
/// a consumer with a socket sends its announcement there once it committed instead of by `NOTIFY`.
@Suite("Read-your-writes announcements by datagram")
struct AnnouncementsByDatagramTests {
    @Test func addressesAreAnIPAddressAndAPort() throws {
        #expect(AnnouncementSocket.parse("127.0.0.1:4000")?.port == 4000)
        #expect(AnnouncementSocket.parse("[::1]:4000")?.port == 4000)
        #expect(AnnouncementSocket.parse("[::1]:4000")?.ipAddress == "::1")
        for bad in ["127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000", "localhost:4000", "", ":4000", "[::1]:x"] {
            #expect(AnnouncementSocket.parse(bad) == nil, "\(bad)")
        }
    }

    /// `auto` (docker-compose): bound on every interface, named by the address the host name resolves to; where it
    /// resolves to nothing, start-up fails with a message naming the setting.
    @Test func autoNamesTheAddressTheHostNameResolvesTo() async throws {
        let resolved = try? AnnouncementSocket.ownAddress()
        do {
            let socket = try await AnnouncementSocket.bind(host: "auto", logger: TestEnvironment.logger)
            #expect(resolved != nil)
            #expect(AnnouncementSocket.parse(socket.address)?.ipAddress == resolved)
            try await socket.channel.close()
        } catch {
            #expect(resolved == nil, "\(error)")
        }
    }

    /// A writer's barrier with a socket (and a `LISTEN` connection that is never run) and a consumer's socket.
    func sockets() async throws -> (
        writer: AnnouncementSocket, consumer: AnnouncementSocket, barrier: ProjectionBarrier
    ) {
        let logger = TestEnvironment.logger
        let writer = try await AnnouncementSocket.bind(host: "127.0.0.1", logger: logger)
        let consumer = try await AnnouncementSocket.bind(host: "127.0.0.1", logger: logger)
        let barrier = ProjectionBarrier(
            writer: ReadYourWritesBarrierTests.writer, timeout: .seconds(120),
            notifications: try TestEnvironment.notificationListener(), announcements: writer, logger: logger)
        return (writer, consumer, barrier)
    }

    /// A consumer in `group` that announces through `announcer`, with a handler that does nothing.
    func announcingConsumer(_ platform: TestPlatform, group: String, announcer: AnnouncementSocket) throws
        -> IdempotentConsumer
    {
        try IdempotentConsumer(
            name: group, topics: [Topic.posts],
            kafka: KafkaConfiguration(bootstrapServers: platform.brokers, clientId: group, properties: [:]),
            client: platform.postgres, producer: platform.producer,
            handler: ClosureEventHandler { _, _, _ in }, logger: TestEnvironment.logger, announcer: announcer)
    }

    /// The message the relay publishes for an event that `barrier`'s writer awaits from `group` (its outbox row,
    /// headers and all), at `offset`; with the event's id.
    func awaitedMessage(
        _ platform: TestPlatform, through barrier: ProjectionBarrier, group: String, offset: Int64
    ) throws -> (UUID, KafkaConsumerMessage) {
        let outbox = Outbox(schema: platform.schema, producerName: ReadYourWritesBarrierTests.writer, barrier: barrier)
        let envelope = EventEnvelope(
            type: AwaitedProbe.eventType.rawValue, schemaVersion: AwaitedProbe.schemaVersion,
            aggregateId: "d", producer: ReadYourWritesBarrierTests.writer, requestId: nil,
            payload: AwaitedProbe(sequence: Int(offset)))
        let row = try outbox.row(envelope, topic: Topic.posts, awaitedBy: [group])
        let published = Outbox.message(
            topic: Topic.posts, partitionKey: "d", payload: row.payload, headersJSON: row.headers)
        let message = KafkaConsumerMessage(
            topic: Topic.posts, partition: 0, offset: offset, key: published.key, value: published.value,
            headers: published.headers, timestamp: nil)
        return (envelope.eventId, message)
    }

    /// The writer's barrier has a socket and no running `LISTEN` connection, so only a datagram can end its waits:
    /// the marked event names the socket's address, and the consumer's announcement — one by one, in a batch, and for
    /// a duplicate — reaches it.
    @Test func aConsumerAnnouncesToTheSocketTheEventNames() async throws {
        try await TestPlatform.with { platform in
            let (writerSocket, consumerSocket, barrier) = try await sockets()
            #expect(barrier.announcementAddress == writerSocket.address)
            #expect(!barrier.isListening)
            let group = TestEnvironment.unique("ryw-datagram-")
            let consumer = try announcingConsumer(platform, group: group, announcer: consumerSocket)
            // A message as the relay publishes the outbox row of an event awaited from `group`: it names the socket.
            func message(offset: Int64) throws -> (UUID, KafkaConsumerMessage) {
                let (eventId, message) = try awaitedMessage(platform, through: barrier, group: group, offset: offset)
                #expect(
                    message.headers.first { $0.key == ReadYourWrites.awaitedAtHeader }?.value
                        == Array(writerSocket.address.utf8))
                return (eventId, message)
            }
            let (one, first) = try message(offset: 0)
            barrier.expect(one, groups: [group])
            #expect(try await consumer.process(first) == .applied)
            #expect(await barrier.wait(for: [one]).isEmpty)

            let (two, second) = try message(offset: 1)
            let (three, third) = try message(offset: 2)
            barrier.expect(two, groups: [group])
            barrier.expect(three, groups: [group])
            barrier.expect(one, groups: [group])
            let (settled, outcomes) = await consumer.settle([second, third, first])
            #expect(settled.count == 3)
            #expect(outcomes == [.applied, .applied, .duplicate])
            #expect(await barrier.wait(for: [two, three, one]).isEmpty)
            try await writerSocket.channel.close()
            try await consumerSocket.channel.close()
        }
    }

    /// A consumer with a socket meets events of a writer without one (an older replica, or `SNS_ANNOUNCE_HOST` empty):
    /// those name no address, so it announces them by `NOTIFY`, and in the same batch sends the addressed one's
    /// datagram. Each writer's barrier hears only its own way: the first listens and has no socket, the second has a
    /// socket and no running `LISTEN` connection.
    @Test func aConsumerWithASocketNotifiesTheEventsThatNameNoAddress() async throws {
        try await TestPlatform.with { platform in
            let (writerSocket, consumerSocket, byDatagram) = try await sockets()
            let group = TestEnvironment.unique("ryw-mixed-")
            let consumer = try announcingConsumer(platform, group: group, announcer: consumerSocket)
            try await ReadYourWritesBarrierTests().withBarrier(timeout: .seconds(120)) { byNotify in
                #expect(byNotify.announcementAddress == nil)
                let (alone, aloneMessage) = try awaitedMessage(platform, through: byNotify, group: group, offset: 0)
                #expect(!aloneMessage.headers.contains { $0.key == ReadYourWrites.awaitedAtHeader })
                byNotify.expect(alone, groups: [group])
                #expect(try await consumer.process(aloneMessage) == .applied)
                #expect(await byNotify.wait(for: [alone]).isEmpty)

                let (unaddressed, first) = try awaitedMessage(platform, through: byNotify, group: group, offset: 1)
                let (addressed, second) = try awaitedMessage(platform, through: byDatagram, group: group, offset: 2)
                byNotify.expect(unaddressed, groups: [group])
                byDatagram.expect(addressed, groups: [group])
                let (settled, outcomes) = await consumer.settle([first, second])
                #expect(settled.count == 2)
                #expect(outcomes == [.applied, .applied])
                #expect(await byNotify.wait(for: [unaddressed]).isEmpty)
                #expect(await byDatagram.wait(for: [addressed]).isEmpty)
            }
            try await writerSocket.channel.close()
            try await consumerSocket.channel.close()
        }
    }
}

/// The events a test handler applied, in order.
actor AppliedEventIds {
    var ids: [UUID] = []
    func add(_ id: UUID) { ids.append(id) }
}
