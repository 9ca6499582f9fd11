import Foundation
import Logging
import Metrics
import PostgresNIO
import SNSKafka
import ServiceLifecycle

/// Consumes topics in a consumer group and applies each event exactly once to the service's database.
///
/// Per message: in one transaction, insert `(consumer, event_id)` into `processed_events` (a duplicate
/// insert means the effect was already applied: skip) and run the handler; commit; then commit the Kafka
/// offset. A crash between the database commit and the offset commit redelivers the message, which the
/// processed-event row turns into a no-op. A failing handler is retried with exponential backoff; after
/// `maxAttempts` the message goes to the dead-letter topic with the failure in headers, and the partition
/// moves on. A message that is not an event envelope at all is dead-lettered at once. An envelope of an event
/// type this build does not know (a newer producer) is skipped and counted, not applied and not recorded, so a
/// later replay applies it once the consumer understands it (compatibility rules: decision 0001).
public final class IdempotentConsumer: Service, Sendable {
    public struct Options: Sendable {
        public var maxAttempts: Int
        public var retryBase: Duration
        public var retryCap: Duration
        public var deadLetterTopic: String

        public init(maxAttempts: Int = 5, retryBase: Duration = .milliseconds(200), retryCap: Duration = .seconds(30), deadLetterTopic: String = Topic.deadLetter) {
            self.maxAttempts = maxAttempts
            self.retryBase = retryBase
            self.retryCap = retryCap
            self.deadLetterTopic = deadLetterTopic
        }
    }

    public enum Outcome: Sendable, Equatable {
        case applied
        case duplicate
        case deadLettered(reason: String)
        /// An event type this build does not know: skipped (counted in `sns_consumer_skipped_total`).
        case skipped(type: String)
    }

    public let name: String
    let schema: SQLIdentifier
    let consumer: KafkaConsumer
    let client: PostgresClient
    let producer: KafkaProducer
    let handler: any EventHandler
    let options: Options
    let logger: Logger
    let startGate: StartGate?
    let appliedCounter: Counter
    let duplicateCounter: Counter
    let deadLetterCounter: Counter

    /// - Parameter name: the consumer group id; also the key under which processed events are recorded.
    public init(
        name: String, schema: SQLIdentifier, topics: [String], kafka: KafkaConfiguration,
        client: PostgresClient, producer: KafkaProducer, handler: some EventHandler,
        options: Options = Options(), logger: Logger, startGate: StartGate? = nil
    ) throws {
        var logger = logger
        logger[metadataKey: "consumer"] = .string(name)
        self.name = name
        self.schema = schema
        self.consumer = try KafkaConsumer(configuration: kafka, groupId: name, topics: topics, offsetReset: .earliest, logger: logger)
        self.client = client
        self.producer = producer
        self.handler = handler
        self.options = options
        self.logger = logger
        self.startGate = startGate
        self.appliedCounter = Counter(label: "sns_consumer_applied_total", dimensions: [("consumer", name)])
        self.duplicateCounter = Counter(label: "sns_consumer_duplicates_total", dimensions: [("consumer", name)])
        self.deadLetterCounter = Counter(label: "sns_consumer_dead_lettered_total", dimensions: [("consumer", name)])
    }

    public func run() async throws {
        if let startGate {
            do { try await startGate.wait() } catch { await consumer.shutdown(); return }
        }
        logger.info("consumer started")
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await self.consumer.run() }
            group.addTask {
                for try await message in self.consumer.messages {
                    let outcome: Outcome
                    do {
                        outcome = try await self.process(message)
                    } catch is Abandoned {
                        self.logger.info("shutting down; message left uncommitted for redelivery")
                        break
                    }
                    switch outcome {
                    case .applied: self.appliedCounter.increment()
                    case .duplicate: self.duplicateCounter.increment()
                    case .deadLettered: self.deadLetterCounter.increment()
                    case .skipped(let type):
                        Counter(label: "sns_consumer_skipped_total", dimensions: [("consumer", self.name), ("type", type)]).increment()
                    }
                    do {
                        try await self.consumer.commit(message)
                    } catch {
                        // e.g. the partition was revoked in a rebalance: the next owner redelivers it, and the
                        // processed-event record makes that a no-op.
                        self.logger.warning("offset commit failed; the message may be redelivered", metadata: ["error": "\(error)"])
                    }
                }
            }
        }
        logger.info("consumer stopped")
    }

    /// Applies one message (with retries and dead-lettering). Does not commit the Kafka offset.
    /// Thrown by `process` when the service shuts down before the message was settled; its offset is not
    /// committed, so it is delivered again after the restart.
    public struct Abandoned: Error {}

    public func process(_ message: KafkaConsumerMessage) async throws -> Outcome {
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
            logger.warning("skipping an event of a type this build does not know", metadata: ["event_type": "\(event.type)"])
            return .skipped(type: String(event.type.prefix(64)))
        }
        logger[metadataKey: "event_type"] = .string(event.type)
        if let requestId = event.metadata.requestId { logger[metadataKey: "request_id"] = .string(requestId) }

        var attempt = 0
        var outages = 0
        while true {
            do {
                return try await apply(event, logger: logger)
            } catch where InfrastructureFailure.isTransient(error) {
                // The database is unreachable, or the transaction lost a deadlock / serialization race:
                // not the event's fault, so it never counts toward dead-lettering. Wait and try again.
                outages += 1
                logger.warning("database unavailable while applying event; waiting", metadata: ["error": "\(error)"])
                try await pause(Backoff.delay(attempt: outages, base: options.retryBase, cap: options.retryCap))
            } catch {
                attempt += 1
                if attempt >= options.maxAttempts {
                    let reason = String(String(reflecting: error).prefix(1000))
                    logger.error("event failed after retries; dead-lettering", metadata: ["attempts": "\(attempt)", "error": "\(reason)"])
                    try await deadLetter(message, reason: reason, attempts: attempt)
                    return .deadLettered(reason: reason)
                }
                logger.warning("event failed; retrying", metadata: ["attempt": "\(attempt)", "error": "\(error)"])
                try await pause(Backoff.delay(attempt: attempt, base: options.retryBase, cap: options.retryCap))
            }
        }
    }

    /// Sleeps, unless the service is shutting down: then the message is abandoned (not committed).
    func pause(_ delay: Duration) async throws {
        if Task.isShuttingDownGracefully || Task.isCancelled { throw Abandoned() }
        try await Task.sleep(for: delay)
        if Task.isShuttingDownGracefully { throw Abandoned() }
    }

    func apply(_ event: IncomingEvent, logger: Logger) async throws -> Outcome {
        let name = self.name
        let schema = self.schema
        let handler = self.handler
        let message = event.message
        return try await client.transaction(logger: logger) { connection -> Outcome in
            let inserted = try await connection.query("""
                INSERT INTO \(table: schema, "processed_events") (consumer, event_id, topic, kafka_partition, kafka_offset)
                VALUES (\(name), \(event.metadata.eventId), \(message.topic), \(Int(message.partition)), \(message.offset))
                ON CONFLICT DO NOTHING
                RETURNING 1
                """, logger: logger)
            var isNew = false
            for try await _ in inserted.decode(Int.self) { isNew = true }
            if isNew { try await handler.handle(event, connection: connection, logger: logger) }
            // A writer waits for this event (read-your-writes): announce it, delivered when this transaction
            // commits. A duplicate is announced too: its effect is there.
            if event.isAwaited {
                let announcement = ReadYourWrites.announcement(group: name, eventId: event.metadata.eventId)
                try await connection.query("SELECT pg_notify(\(ReadYourWrites.channel), \(announcement))", logger: logger)
            }
            return isNew ? .applied : .duplicate
        }
    }

    /// A dead-lettered awaited event will not be applied soon: its writer stops waiting for this group.
    func announceGivenUp(_ message: KafkaConsumerMessage) async {
        guard let event = try? IncomingEvent(message: message), event.isAwaited else { return }
        let announcement = ReadYourWrites.announcement(group: name, eventId: event.metadata.eventId)
        _ = try? await client.query("SELECT pg_notify(\(ReadYourWrites.channel), \(announcement))", logger: logger)
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
        let parked = KafkaOutgoingMessage(topic: options.deadLetterTopic, key: message.key, value: message.value, headers: headers)
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
