import Foundation
import Logging
import Metrics
import PostgresNIO
import SNSKafka
import ServiceLifecycle

/// Consumes topics in a consumer group and applies each event exactly once to the service's database.
///
/// Per message: in one transaction, insert `(consumer, event_id)` into `processed_events` (a duplicate
/// insert means the effect was already applied: skip) and run the handler; commit; then store the Kafka offset,
/// which librdkafka commits within a second (decision 0030). A crash between the database commit and the offset
/// commit redelivers the message, which the processed-event row turns into a no-op. A failing handler is retried with exponential backoff; after
/// `maxAttempts` the message goes to the dead-letter topic with the failure in headers, and the partition
/// moves on. A message that is not an event envelope at all is dead-lettered at once. An envelope of an event
/// type this build does not know (a newer producer) is skipped and counted, not applied and not recorded, so a
/// later replay applies it once the consumer understands it (compatibility rules: decision 0001). An event of a type
/// the handler leaves alone (`EventHandler.handles`) costs no transaction and is not recorded.
package final class IdempotentConsumer: Service, Sendable {
    package struct Options: Sendable {
        package var maxAttempts: Int
        package var retryBase: Duration
        package var retryCap: Duration
        package var deadLetterTopic: String
        /// At most this many records are applied in one transaction (only what has already arrived: a batch
        /// never waits to fill up).
        package var batchSize: Int

        package init(
            maxAttempts: Int = 5, retryBase: Duration = .milliseconds(200), retryCap: Duration = .seconds(30),
            deadLetterTopic: String = Topic.deadLetter, batchSize: Int = 100
        ) {
            self.batchSize = batchSize
            self.maxAttempts = maxAttempts
            self.retryBase = retryBase
            self.retryCap = retryCap
            self.deadLetterTopic = deadLetterTopic
        }
    }

    package enum Outcome: Sendable, Equatable {
        case applied
        case duplicate
        case deadLettered(reason: String)
        /// An event type this build does not know: skipped (counted in `sns_consumer_skipped_total`).
        case skipped(type: String)
        /// A type the handler has nothing to do with (`EventHandler.handles`): neither handled nor recorded.
        case ignored
    }

    package let name: String
    let consumer: KafkaConsumer
    let client: DatabasePool
    let producer: KafkaProducer
    let handler: any EventHandler
    let options: Options
    let logger: Logger
    let startGate: StartGate?
    /// Ends a pause for a database outage as soon as the database is back.
    let recovery: DatabaseRecovery?
    /// Sends announcements by datagram to writers whose events name their socket (decision 0050); nil: every
    /// announcement is a `NOTIFY`.
    let announcer: AnnouncementSocket?
    let appliedCounter: Counter
    let duplicateCounter: Counter
    let deadLetterCounter: Counter

    /// - Parameter name: the consumer group id; also the key under which processed events are recorded.
    package init(
        name: String, topics: [String], kafka: KafkaConfiguration,
        client: DatabasePool, producer: KafkaProducer, handler: some EventHandler,
        options: Options = Options(), logger: Logger, startGate: StartGate? = nil, recovery: DatabaseRecovery? = nil,
        announcer: AnnouncementSocket? = nil
    ) throws {
        var logger = logger
        logger[metadataKey: "consumer"] = .string(name)
        self.name = name
        self.consumer = try KafkaConsumer(
            configuration: kafka, groupId: name, topics: topics, offsetReset: .earliest, logger: logger)
        self.client = client
        self.producer = producer
        self.handler = handler
        self.options = options
        self.logger = logger
        self.startGate = startGate
        self.recovery = recovery
        self.announcer = announcer
        self.appliedCounter = Counter(label: "sns_consumer_applied_total", dimensions: [("consumer", name)])
        self.duplicateCounter = Counter(label: "sns_consumer_duplicates_total", dimensions: [("consumer", name)])
        self.deadLetterCounter = Counter(label: "sns_consumer_dead_lettered_total", dimensions: [("consumer", name)])
    }

    package func run() async throws {
        if let startGate {
            do { try await startGate.wait() } catch { await consumer.shutdown(); return }
        }
        logger.info("consumer started")
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await self.consumer.run() }
            group.addTask { try await self.consumeUntilShutdown() }
        }
        logger.info("consumer stopped")
    }

    /// Holds its group's current assignment (joined, no rebalance under way): what `/ready` reports as `consumers`.
    package var holdsAssignment: Bool { consumer.holdsAssignment }

    /// Stops consuming and leaves the group now (a draining replica hands its partitions over early); `run()` still
    /// returns only at shutdown.
    package func leaveGroup() async {
        await consumer.shutdown()
    }

    /// Takes what the broker has delivered, up to `options.batchSize` records at a time, applies them, and stores
    /// their offsets for librdkafka's periodic commit (`KafkaConsumer.store`). Closing the consumer commits what was
    /// stored; a batch that was being applied when the consumer closed is redelivered after the restart (duplicates).
    func consumeUntilShutdown() async throws {
        while let batch = try await consumer.nextBatch(limit: options.batchSize) {
            let (settled, outcomes) = await settle(batch)
            for outcome in outcomes { count(outcome) }
            // Stored, committed by librdkafka within a second (or when the partition is revoked or the consumer
            // closes): a crash before that redelivers them, and the processed-event records make that a no-op.
            consumer.store(settled)
            if settled.count < batch.count {
                logger.info(
                    "shutting down; messages left uncommitted for redelivery",
                    metadata: ["count": "\(batch.count - settled.count)"])
                break
            }
        }
    }

    func count(_ outcome: Outcome) {
        switch outcome {
        case .applied: appliedCounter.increment()
        case .duplicate: duplicateCounter.increment()
        case .deadLettered: deadLetterCounter.increment()
        case .skipped(let type):
            Counter(label: "sns_consumer_skipped_total", dimensions: [("consumer", name), ("type", type)]).increment()
        case .ignored: break
        }
    }

    /// Applies a batch: first all of it in one transaction; if that fails for any reason, message by message with
    /// `process` (retries, dead-lettering), so one bad event never holds back or rolls back the others. Returns the
    /// prefix of the batch that is settled (all of it unless the service is shutting down) and the outcomes.
    func settle(_ batch: [KafkaConsumerMessage]) async -> (settled: [KafkaConsumerMessage], outcomes: [Outcome]) {
        if batch.count > 1, let outcomes = try? await applyAll(batch) {
            return (batch, outcomes)
        }
        var outcomes: [Outcome] = []
        for (index, message) in batch.enumerated() {
            do {
                outcomes.append(try await process(message))
            } catch {
                // `Abandoned` (shutting down) is the only error `process` lets out.
                return (Array(batch[..<index]), outcomes)
            }
        }
        return (batch, outcomes)
    }

    /// The whole batch in one transaction: one statement records the processed events and announces the awaited
    /// ones (`RecordProcessedEvents`), then the handlers run in order for the events not seen before. Returns nil (nothing committed)
    /// when a record is not an event envelope, so that the caller deals with it one by one.
    func applyAll(_ batch: [KafkaConsumerMessage]) async throws -> [Outcome]? {
        var events: [IncomingEvent] = []
        for message in batch {
            guard let event = try? IncomingEvent(message: message) else { return nil }
            events.append(event)
        }
        let name = self.name, handler = self.handler, logger = self.logger
        let known = events.filter { $0.eventType != nil }
        // Writers wait for these events (read-your-writes): announced when this transaction commits.
        let announcements = known.filter { $0.isAwaited(by: name) }.map { $0.announcement(group: name) }
        let notified = announcements.notified(sending: announcer)
        // Asked once per event (a handler's `changesAnything` may decode the payload).
        let applying = events.map { handler.applies($0) }
        let relevant = zip(events, applying).filter(\.1).map(\.0)
        if relevant.isEmpty {
            // Nothing to apply: no transaction, no processed-event rows.
            if !announcements.isEmpty { try await announce(announcements) }
            return events.map { $0.eventType == nil ? skip($0) : .ignored }
        }
        var applied = try await client.transaction(logger: logger) { connection -> Set<UUID> in
            let record = RecordProcessedEvents(consumer: name, events: relevant, announcements: notified)
            var fresh = Set<UUID>()
            for try await id in try await connection.execute(record, logger: logger) {
                if let id { fresh.insert(id) }
            }
            var applied = Set<UUID>()
            // New events in partition order; the same event twice in one batch is applied once.
            let toApply = relevant.filter {
                fresh.contains($0.metadata.eventId) && applied.insert($0.metadata.eventId).inserted
            }
            if !toApply.isEmpty { try await handler.handle(batch: toApply, connection: connection, logger: logger) }
            return applied
        }
        announcements.sendDatagrams(on: announcer)
        return zip(events, applying).map { event, applies in
            guard event.eventType != nil else { return skip(event) }
            guard applies else { return .ignored }
            return applied.remove(event.metadata.eventId) != nil ? .applied : .duplicate
        }
    }

    /// An event of a type this build does not know.
    private func skip(_ event: IncomingEvent) -> Outcome {
        logger.warning(
            "skipping an event of a type this build does not know", metadata: ["event_type": "\(event.type)"])
        return .skipped(type: String(event.type.prefix(64)))
    }

    /// Announces applied (or ignored) awaited events outside a transaction: delivered at once.
    private func announce(_ announcements: [Announcement]) async throws {
        let notified = announcements.notified(sending: announcer)
        if !notified.isEmpty {
            _ = try await client.query(
                """
                SELECT pg_notify(a.channel, a.payload)
                FROM unnest(\(notified.map(\.channel))::text[], \(notified.map(\.payload))::text[]) AS a(channel, payload)
                """, logger: logger)
        }
        announcements.sendDatagrams(on: announcer)
    }

    /// Applies one message (with retries and dead-lettering). Does not commit the Kafka offset.
    /// Thrown by `process` when the service shuts down before the message was settled; its offset is not
    /// committed, so it is delivered again after the restart.
    package struct Abandoned: Error {}

    package func process(_ message: KafkaConsumerMessage) async throws -> Outcome {
        let event: IncomingEvent
        do {
            event = try IncomingEvent(message: message)
        } catch {
            let reason = "not an event envelope: \(error)"
            try await deadLetter(message, reason: reason, attempts: 1)
            return .deadLettered(reason: reason)
        }
        var logger = self.logger
        logger[metadataKey: "event_id"] = .string(event.metadata.eventId.uuidString.lowercased())
        guard event.eventType != nil else {
            logger.warning(
                "skipping an event of a type this build does not know", metadata: ["event_type": "\(event.type)"])
            return .skipped(type: String(event.type.prefix(64)))
        }
        logger[metadataKey: "event_type"] = .string(event.type)
        if let requestId = event.metadata.requestId { logger[metadataKey: "request_id"] = .string(requestId) }

        var attempt = 0
        var outages = 0
        while true {
            do {
                return try await apply(event, logger: logger)
            } catch  where InfrastructureFailure.isTransient(error) {
                // The database is unreachable, or the transaction lost a deadlock / serialization race:
                // not the event's fault, so it never counts toward dead-lettering. Wait and try again.
                outages += 1
                logger.warning("database unavailable while applying event; waiting", metadata: ["error": "\(error)"])
                try await pause(
                    Backoff.delay(attempt: outages, base: options.retryBase, cap: options.retryCap),
                    untilDatabaseRecovers: true)
            } catch {
                attempt += 1
                if attempt >= options.maxAttempts {
                    let reason = String(String(reflecting: error).prefix(1000))
                    logger.error(
                        "event failed after retries; dead-lettering",
                        metadata: ["attempts": "\(attempt)", "error": "\(reason)"])
                    try await deadLetter(message, reason: reason, attempts: attempt)
                    return .deadLettered(reason: reason)
                }
                logger.warning("event failed; retrying", metadata: ["attempt": "\(attempt)", "error": "\(error)"])
                try await pause(Backoff.delay(attempt: attempt, base: options.retryBase, cap: options.retryCap))
            }
        }
    }

    /// Sleeps, unless the service is shutting down: then the message is abandoned (not committed). A pause for a
    /// database outage ends early when the database watch sees the database back.
    func pause(_ delay: Duration, untilDatabaseRecovers: Bool = false) async throws {
        if Task.isShuttingDownGracefully || Task.isCancelled { throw Abandoned() }
        await DatabaseRecovery.pause(delay, wakingOn: untilDatabaseRecovers ? recovery : nil)
        try Task.checkCancellation()
        if Task.isShuttingDownGracefully { throw Abandoned() }
    }

    func apply(_ event: IncomingEvent, logger: Logger) async throws -> Outcome {
        let name = self.name
        let handler = self.handler
        if event.eventType != nil, !handler.applies(event) {
            if event.isAwaited(by: name) {
                try await announce([event.announcement(group: name)])
            }
            return .ignored
        }
        // A writer waits for this event (read-your-writes): announced in the same statement as the record, delivered
        // when it commits, or by datagram once it committed. A duplicate is announced too: its effect is there.
        let announcements = event.isAwaited(by: name) ? [event.announcement(group: name)] : []
        let notified = announcements.notified(sending: announcer)
        let outcome: Outcome
        // A payload the handler cannot read takes the transaction path, which records a duplicate as such first.
        if let effect = try? handler.oneStatement(for: event) {
            outcome = try await applyInOneStatement(effect, event: event, announcements: notified, logger: logger)
        } else {
            outcome = try await client.transaction(logger: logger) { connection -> Outcome in
                let record = RecordProcessedEvents(consumer: name, events: [event], announcements: notified)
                var isNew = false
                for try await id in try await connection.execute(record, logger: logger) where id != nil {
                    isNew = true
                }
                if isNew { try await handler.handle(event, connection: connection, logger: logger) }
                return isNew ? .applied : .duplicate
            }
        }
        announcements.sendDatagrams(on: announcer)
        return outcome
    }

    /// The record, the announcements and the effect in one statement (`RecordedEffect`), under the same deadline as a
    /// transaction (`PostgresClient.transaction`).
    private func applyInOneStatement<Effect: OneStatementEffect>(
        _ effect: Effect, event: IncomingEvent, announcements: [Announcement], logger: Logger
    ) async throws -> Outcome {
        let (client, name) = (self.client, self.name)
        let isNew = try await client.statement(logger: logger) { connection in
            try await RecordedEffect.apply(
                effect, consumer: name, event: event, announcements: announcements, on: connection, logger: logger)
        }
        return isNew ? .applied : .duplicate
    }

    /// A dead-lettered awaited event will not be applied soon: its writer stops waiting for this group.
    func announceGivenUp(_ message: KafkaConsumerMessage) async {
        guard let event = try? IncomingEvent(message: message), event.isAwaited(by: name) else { return }
        _ = try? await announce([event.announcement(group: name)])
    }

    /// Parks the message on the dead-letter topic. Retries until the broker acknowledged it: the offset is only
    /// committed once the message is either applied or safely dead-lettered.
    func deadLetter(_ message: KafkaConsumerMessage, reason: String, attempts: Int) async throws {
        var headers = message.headers.filter { !$0.key.hasPrefix("sns-dlq-") }
        headers.append(KafkaHeader(key: EventHeader.dlqReason, string: reason))
        headers.append(KafkaHeader(key: EventHeader.dlqConsumer, string: name))
        headers.append(KafkaHeader(key: EventHeader.dlqOriginalTopic, string: message.topic))
        headers.append(KafkaHeader(key: EventHeader.dlqOriginalPartition, string: String(message.partition)))
        headers.append(KafkaHeader(key: EventHeader.dlqOriginalOffset, string: String(message.offset)))
        headers.append(KafkaHeader(key: EventHeader.dlqAttempts, string: String(attempts)))
        headers.append(KafkaHeader(key: EventHeader.dlqFailedAt, string: APIDateFormat.string(from: Date())))
        let parked = KafkaOutgoingMessage(
            topic: options.deadLetterTopic, key: message.key, value: message.value, headers: headers)
        var failures = 0
        while true {
            do {
                _ = try await producer.send(parked)
                await announceGivenUp(message)
                return
            } catch {
                failures += 1
                logger.warning("could not dead-letter a message; retrying", metadata: ["error": "\(error)"])
                try await pause(Backoff.delay(attempt: failures, base: options.retryBase, cap: options.retryCap))
            }
        }
    }
}
