/// How long a service keeps its published outbox rows and its consumers' processed-event records, and how often it
/// prunes what is older (decision 0038). Nil keeps them for ever.
package struct RetentionPolicy: Sendable, Equatable {
    /// Published outbox rows older than this are deleted (`SNS_OUTBOX_RETENTION_HOURS`). Pending rows never are.
    package var outbox: Duration?
    /// Processed-event records older than this are deleted (`SNS_PROCESSED_EVENTS_RETENTION_HOURS`); never shorter
    /// than `outbox`, so that republishing what the outbox still holds stays a no-op for every consumer.
    package var processedEvents: Duration?
    /// Time between two pruning passes (`SNS_RETENTION_INTERVAL_MINUTES`).
    package var interval: Duration

    /// The shipped defaults: a week of outbox (Kafka's own default retention), a day more of records, a pass every ten
    /// minutes (small passes: the same work as hourly ones, in shorter stretches).
    package static let standard = RetentionPolicy(
        outbox: .seconds(7 * 24 * 3600), processedEvents: .seconds(8 * 24 * 3600), interval: .seconds(600))
    /// Keeps everything (in-process services of the tests, which share their schema with the test's own checks).
    package static let keepEverything = RetentionPolicy(outbox: nil, processedEvents: nil, interval: .seconds(3600))

    package init(outbox: Duration?, processedEvents: Duration?, interval: Duration) {
        self.outbox = outbox
        self.processedEvents = processedEvents
        self.interval = interval
    }

    /// True when a pass has anything to do.
    package var prunes: Bool { outbox != nil || processedEvents != nil }

    /// Reads the three variables (hours and minutes; 0 hours: keep for ever) and checks that the records outlive the
    /// outbox.
    package init(environment env: Environment) throws {
        let outboxHours = try env.int("SNS_OUTBOX_RETENTION_HOURS", default: 168, range: 0...87_600)
        let recordHours = try env.int("SNS_PROCESSED_EVENTS_RETENTION_HOURS", default: 192, range: 0...87_600)
        let minutes = try env.int("SNS_RETENTION_INTERVAL_MINUTES", default: 10, range: 1...10_080)
        if recordHours != 0, outboxHours == 0 || recordHours < outboxHours {
            throw ConfigurationError(
                variable: "SNS_PROCESSED_EVENTS_RETENTION_HOURS",
                reason:
                    "must be 0 (keep for ever) or at least SNS_OUTBOX_RETENTION_HOURS (a republished event must still find its record)"
            )
        }
        self.init(
            outbox: outboxHours == 0 ? nil : .seconds(outboxHours * 3600),
            processedEvents: recordHours == 0 ? nil : .seconds(recordHours * 3600),
            interval: .seconds(minutes * 60))
    }
}
