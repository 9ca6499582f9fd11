import Foundation
import PostgresNIO
import SNSKafka
import SNSPlatform

/// Seeded random streams of post events for the read models' batch tests (decision 0015): a few posts, so that
/// runs repeat posts, and every kind of snapshot event — creations, updates older and newer than what is stored,
/// deletions, absent product ids, titles and prices, Hangul hashtags.
package enum PostEventStream {
    /// - Parameters:
    ///   - paths: when given, each snapshot shows up to three of them (repeats included) and sometimes a path that
    ///     is not a media path; otherwise snapshots show no files.
    ///   - withdrawals: when true, about one event in twelve of the even-numbered posts is the withdrawal of
    ///     their author (`user-withdrawn`); the odd-numbered posts' authors stay.
    package static func events(
        seed: UInt64, count: Int, posts: UInt64 = 6, paths: [String] = [], withdrawals: Bool = false
    ) throws -> [IncomingEvent] {
        var random = SeededRandom(seed: seed)
        let start = Date(timeIntervalSince1970: 1_750_000_000.123)
        var events: [IncomingEvent] = []
        for index in 0..<count {
            let number = random.next() % posts
            let post = "p\(number)"
            let at = start.addingTimeInterval(Double(random.next() % 1_000) / 7)  // out of order on purpose
            if withdrawals, number % 2 == 0, random.next() % 12 == 0 {
                events.append(
                    try event(UserWithdrawn(userId: "u\(post)", withdrawnAt: at), key: "u\(post)", offset: index))
                continue
            }
            var files: [String] = []
            if !paths.isEmpty {
                for _ in 0..<(random.next() % 4) { files.append(paths[Int(random.next() % UInt64(paths.count))]) }
                if random.next() % 5 == 0 { files.append("not/a/media/path.jpg") }
            }
            let snapshot = PostSnapshot(
                postId: post, userId: "u\(post)", productId: random.next() % 4 == 0 ? nil : "prod\(random.next() % 2)",
                title: random.next() % 3 == 0 ? nil : "제목 \(index)",
                price: random.next() % 3 == 0 ? nil : Int(random.next() % 50_000),
                files: files, hashTags: random.next() % 2 == 0 ? ["태그\(index % 3)", "Tag"] : [],
                createdAt: start, updatedAt: at)
            switch random.next() % 10 {
            case 0...4: events.append(try event(PostCreated(post: snapshot), key: post, offset: index))
            case 5...7: events.append(try event(PostUpdated(post: snapshot), key: post, offset: index))
            default:
                events.append(
                    try event(
                        PostDeleted(
                            postId: post, userId: "u\(post)", productId: snapshot.productId, files: files, deletedAt: at
                        ),
                        key: post, offset: index))
            }
        }
        return events
    }

    package static func event<P: EventPayload>(_ payload: P, key: String, offset: Int) throws -> IncomingEvent {
        let envelope = EventEnvelope(
            type: P.eventType.rawValue, aggregateId: key, producer: "test", requestId: nil, payload: payload)
        return try IncomingEvent(
            message: KafkaConsumerMessage(
                topic: Topic.posts, partition: 0, offset: Int64(offset), key: Array(key.utf8),
                value: Array(try EventCoding.encoder().encode(envelope)), headers: [], timestamp: nil))
    }

    /// The rows a read model ends with, per way of applying the same stream.
    package struct RowsByWay: Sendable {
        /// The stream in batches (`handle(batch:)`), each in a transaction: of 1, 8 and 27 events, then the rest, so
        /// that later batches meet the rows of earlier ones.
        package var batched: [String]
        /// Event by event, each in a transaction (`handle`).
        package var single: [String]
        /// Event by event as a consumer given one event at a time applies it: the handler's one statement together
        /// with the event's record (`RecordedEffect`) where it has one, else a transaction; after each event an
        /// earlier one is delivered again, which its record must turn into a no-op.
        ///
        /// In all three ways, as in the consumer, the events the handler says change nothing
        /// (`EventHandler.applies`) are left out.
        package var recorded: [String]
    }

    /// Applies `stream` to three fresh schemas of the same migrations, in the three ways of `RowsByWay`, and returns
    /// the rows `query` reads from each (as text).
    package static func applyEveryWay(
        _ stream: [IncomingEvent], platform: TestPlatform, migrations: (SQLIdentifier) -> [Migration],
        handler: (SQLIdentifier) -> any EventHandler, rows query: (SQLIdentifier) -> PostgresQuery
    ) async throws -> RowsByWay {
        var result: [[String]] = []
        for way in 0..<3 {
            let schema = try SQLIdentifier(TestEnvironment.unique(["sb_", "ss_", "sr_"][way]))
            try await Migrator(schema: schema, migrations: PlatformMigrations.all(schema: schema) + migrations(schema))
                .migrate(client: platform.postgres.client, logger: TestEnvironment.logger)
            let handler = handler(schema)
            // The handlers' prepared statements name tables unqualified, as a service's connections find its schema
            // first on their search path: so do these transactions.
            let searchPath = PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \"\(schema.name)\", public")
            switch way {
            case 0:
                var rest = stream[...]
                for size in [1, 8, 27, rest.count] where !rest.isEmpty {
                    // As the consumer: events the handler says change nothing are left out (`EventHandler.applies`).
                    let batch = rest.prefix(size).filter { handler.applies($0) }
                    rest = rest.dropFirst(size)
                    if batch.isEmpty { continue }
                    try await platform.postgres.transaction(logger: TestEnvironment.logger) { connection in
                        try await connection.query(searchPath, logger: TestEnvironment.logger)
                        try await handler.handle(batch: batch, connection: connection, logger: TestEnvironment.logger)
                    }
                }
            case 1:
                for event in stream where handler.applies(event) {
                    try await platform.postgres.transaction(logger: TestEnvironment.logger) { connection in
                        try await connection.query(searchPath, logger: TestEnvironment.logger)
                        try await handler.handle(event, connection: connection, logger: TestEnvironment.logger)
                    }
                }
            default:
                // After each event, an earlier one is delivered again (a redelivery): its record makes it a no-op.
                var random = SeededRandom(seed: UInt64(stream.count))
                for (index, event) in stream.enumerated() {
                    let again = stream[Int(random.next() % UInt64(index + 1))]
                    for delivery in [event, again] where handler.applies(delivery) {
                        if let effect = try handler.oneStatement(for: delivery) {
                            try await applyRecorded(effect, event: delivery, schema: schema, platform: platform)
                        } else {
                            try await platform.postgres.transaction(logger: TestEnvironment.logger) { connection in
                                try await connection.query(searchPath, logger: TestEnvironment.logger)
                                try await recordAndHandle(delivery, handler: handler, on: connection)
                            }
                        }
                    }
                }
            }
            var rows: [String] = []
            for try await row in try await platform.postgres.query(query(schema), logger: TestEnvironment.logger)
                .decode(String.self)
            {
                rows.append(row)
            }
            result.append(rows)
        }
        return RowsByWay(batched: result[0], single: result[1], recorded: result[2])
    }

    /// One statement outside a transaction, so the search path is set for the session and reset after it (also when
    /// the statement fails: the connection goes back to the pool).
    static func applyRecorded<Effect: OneStatementEffect>(
        _ effect: Effect, event: IncomingEvent, schema: SQLIdentifier, platform: TestPlatform
    ) async throws {
        try await platform.postgres.withConnection { connection in
            try await connection.query(
                PostgresQuery(unsafeSQL: "SET search_path TO \"\(schema.name)\", public"),
                logger: TestEnvironment.logger)
            do {
                _ = try await RecordedEffect.apply(
                    effect, consumer: "test", event: event, announcements: [], on: connection,
                    logger: TestEnvironment.logger)
            } catch {
                _ = try? await connection.query("RESET search_path", logger: TestEnvironment.logger)
                throw error
            }
            try await connection.query("RESET search_path", logger: TestEnvironment.logger)
        }
    }

    /// The transaction path's record, for redeliveries: the handler runs only for an event not seen before.
    static func recordAndHandle(_ event: IncomingEvent, handler: any EventHandler, on connection: PostgresConnection)
        async throws
    {
        let rows = try await connection.query(
            """
            INSERT INTO processed_events (consumer, event_id, topic, kafka_partition, kafka_offset)
            VALUES ('test', \(event.metadata.eventId), \(event.message.topic), \(Int32(event.message.partition)),
                    \(event.message.offset))
            ON CONFLICT DO NOTHING RETURNING event_id
            """, logger: TestEnvironment.logger)
        var isNew = false
        for try await _ in rows { isNew = true }
        if isNew { try await handler.handle(event, connection: connection, logger: TestEnvironment.logger) }
    }
}

/// xorshift64*: the same stream for the same seed on every machine.
package struct SeededRandom: Sendable {
    var state: UInt64
    package init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    package mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
