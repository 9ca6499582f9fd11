import ArgumentParser
import Foundation
import SNSAdmin
import SNSKafka
import SNSPlatform

struct DeadLetterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dlq", abstract: "Dead-lettered messages: list, show, retry, drop.",
        subcommands: [List.self, Show.self, Retry.self, Drop.self], defaultSubcommand: List.self)

    /// Reads the dead-letter topic and the tool's action table, then runs `body`. Only commands that record
    /// actions (`writes`) create the table; listing changes nothing in the database.
    static func withDeadLetters<T: Sendable>(
        _ connection: ConnectionOptions, writes: Bool = false,
        _ body: @Sendable ([KafkaConsumerMessage], [DeadLetter], DeadLetterStore, KafkaConfiguration) async throws -> T
    ) async throws -> T {
        let logger = AdminRuntime.logger(verbose: connection.verbose)
        let kafka = try connection.kafkaConfiguration()
        let messages: [KafkaConsumerMessage]
        do {
            messages = try await KafkaPartitionReader.readAll(
                configuration: kafka, topic: Topic.deadLetter, logger: logger)
        } catch {
            throw AdminError("cannot read \(Topic.deadLetter): \(error)")
        }
        return try await AdminRuntime.withDatabase(url: try connection.database(), logger: logger) { client in
            let store = DeadLetterStore(client: client, logger: logger)
            if writes { try await store.prepare() }
            return try await body(messages, try await DeadLetters.list(messages: messages, store: store), store, kafka)
        }
    }

    static func select(_ ids: [String], all: Bool, consumer: String?, from letters: [DeadLetter]) throws -> [DeadLetter]
    {
        if all { return letters.filter { $0.state == "open" && (consumer == nil || $0.consumer == consumer) } }
        guard !ids.isEmpty else {
            throw ValidationError("name dead letters by id (partition:offset, see `dlq list`) or pass --all")
        }
        // Named ones must all be open: otherwise nothing is done, so a typo or a stale id never half-applies.
        return try ids.map { id in
            guard let letter = letters.first(where: { $0.id == id }) else { throw AdminError("no dead letter \(id)") }
            guard letter.state == "open" else {
                throw AdminError(
                    "dead letter \(id) was already \(letter.state) (`dlq list --all` shows it); nothing done")
            }
            return letter
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open dead letters (--all: retried and dropped ones too).")
        @OptionGroup var connection: ConnectionOptions
        @Flag(help: "Include retried and dropped ones.") var all = false
        @Option(help: "Only those of this consumer group.") var consumer: String?

        func run() async throws {
            let (all, consumer) = (self.all, self.consumer)
            var letters = try await withDeadLetters(connection) { _, letters, _, _ in letters }
            letters = letters.filter { (all || $0.state == "open") && (consumer == nil || $0.consumer == consumer) }
            if connection.json {
                return try Output.json(
                    letters.map {
                        var l = $0; l.payload = nil; return l
                    })
            }
            if letters.isEmpty { return print("no dead letters") }
            Output.table(
                ["id", "state", "consumer", "event", "from", "failed at", "reason"],
                letters.map {
                    [
                        $0.id, $0.state, $0.consumer ?? "-", $0.eventType ?? "?",
                        "\($0.originalTopic ?? "?")[\($0.originalPartition.map(String.init) ?? "?")]@\($0.originalOffset.map(String.init) ?? "?")",
                        $0.failedAt ?? "-", String(($0.reason ?? "").prefix(80)),
                    ]
                })
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One dead letter in full: headers' reasons and the message.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Its id (partition:offset).") var id: String

        func run() async throws {
            let id = self.id
            let letters = try await withDeadLetters(connection) { _, letters, _, _ in letters }
            guard let letter = letters.first(where: { $0.id == id }) else { throw AdminError("no dead letter \(id)") }
            if connection.json { return try Output.json(letter) }
            for (name, value) in [
                ("id", letter.id), ("state", letter.state), ("consumer", letter.consumer),
                ("event type", letter.eventType),
                ("event id", letter.eventId), ("key", letter.key), ("failed at", letter.failedAt),
                ("attempts", letter.attempts.map(String.init)),
                (
                    "from",
                    "\(letter.originalTopic ?? "?")[\(letter.originalPartition.map(String.init) ?? "?")]@\(letter.originalOffset.map(String.init) ?? "?")"
                ),
                ("reason", letter.reason), ("message", letter.payload),
            ] as [(String, String?)] {
                print("\(name.padding(toLength: 11, withPad: " ", startingAt: 0)) \(value ?? "-")")
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Send dead letters back to their original topic (the idempotent consumers that applied them skip them)."
        )
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Ids (partition:offset).") var ids: [String] = []
        @Flag(help: "Every open dead letter (of --consumer, if given).") var all = false
        @Option(help: "With --all: only this consumer group's.") var consumer: String?

        func run() async throws {
            let (ids, all, consumer, verbose) = (self.ids, self.all, self.consumer, connection.verbose)
            let (chosen, retried) = try await withDeadLetters(connection, writes: true) {
                messages, letters, store, kafka in
                let chosen = try select(ids, all: all, consumer: consumer, from: letters)
                let retried = try await AdminRuntime.withProducer(
                    configuration: kafka, logger: AdminRuntime.logger(verbose: verbose)
                ) { producer in
                    try await DeadLetters.retry(chosen, messages: messages, store: store, producer: producer)
                }
                return (chosen.map(\.id), retried)
            }
            let skipped = chosen.filter { !retried.contains($0) }
            if connection.json { return try Output.json(["retried": retried, "skipped": skipped]) }
            print(retried.isEmpty ? "nothing to retry" : "retried \(retried.count): \(retried.joined(separator: " "))")
            if !skipped.isEmpty {
                print(
                    "skipped \(skipped.count), retried or dropped by someone else meanwhile: \(skipped.joined(separator: " "))"
                )
            }
        }
    }

    struct Drop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark dead letters as dealt with (they stay on the topic, hidden from `dlq list`).")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "Ids (partition:offset).") var ids: [String] = []
        @Flag(help: "Every open dead letter (of --consumer, if given).") var all = false
        @Option(help: "With --all: only this consumer group's.") var consumer: String?
        @Option(help: "Why (kept with the record).") var reason: String?

        func run() async throws {
            let (ids, all, consumer, reason) = (self.ids, self.all, self.consumer, self.reason)
            let dropped = try await withDeadLetters(connection, writes: true) { _, letters, store, _ in
                try await DeadLetters.drop(
                    try select(ids, all: all, consumer: consumer, from: letters), reason: reason, store: store)
            }
            if connection.json { return try Output.json(["dropped": dropped]) }
            print(dropped.isEmpty ? "nothing to drop" : "dropped \(dropped.count): \(dropped.joined(separator: " "))")
        }
    }
}
