import ArgumentParser
import Foundation
import SNSAdmin
import SNSKafka
import SNSPlatform

struct TailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Print a topic's events (type, key, id, time, request id), filtered by type and key; --follow waits for new ones.")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The topic, e.g. sns.posts.") var topic: String
    @Option(name: .customLong("type"), help: "Only this event type (repeatable).") var types: [String] = []
    @Option(help: "Only events with this key (aggregate id).") var key: String?
    @Option(help: "Start this many messages before the end of each partition (default: all history).") var last: Int?
    @Flag(help: "Keep waiting for new messages (Ctrl-C stops).") var follow = false
    @Option(help: "Stop after printing this many events.") var limit: Int?
    @Flag(help: "Print each event's whole JSON too.") var payload = false

    func run() async throws {
        let logger = AdminRuntime.logger(verbose: connection.verbose)
        let configuration = KafkaConfiguration(bootstrapServers: try connection.kafka(), clientId: "sns-admin")
        let start: KafkaPartitionReader.Start = last.map { .last($0) } ?? .beginning
        var printed = 0
        func emit(_ message: KafkaConsumerMessage) throws -> Bool {
            let view = EventView(message, withPayload: payload || connection.json)
            guard view.matches(types: types, key: key) else { return true }
            if connection.json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                encoder.dateEncodingStrategy = .custom(APIDateFormat.encode)
                print(String(decoding: try encoder.encode(view), as: UTF8.self))
            } else {
                print(view.line)
                if payload, let body = view.payload { print("    \(body)") }
            }
            printed += 1
            return limit.map { printed < $0 } ?? true
        }
        let history: [KafkaConsumerMessage]
        do {
            history = try await KafkaPartitionReader.readAll(configuration: configuration, topic: topic, logger: logger, from: start)
        } catch {
            throw AdminError("cannot read \(topic): \(error)")
        }
        for message in history.sorted(by: { ($0.timestamp ?? .distantPast, $0.partition, $0.offset) < ($1.timestamp ?? .distantPast, $1.partition, $1.offset) }) {
            guard try emit(message) else { return }
        }
        guard follow else { return }
        // Continue after what was printed: every partition from its end as read above.
        let admin = try KafkaAdmin(configuration: configuration, logger: logger)
        let marks = try await admin.watermarks(topic: topic)
        await admin.close()
        let reader = try KafkaPartitionReader(configuration: configuration, assignments: marks.map { partition, range in
            KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: .absolute(range.high))
        }, logger: logger)
        while !Task.isCancelled {
            guard let message = try await reader.next(timeout: .seconds(1)) else { continue }
            guard try emit(message) else { break }
        }
        await reader.close()
    }
}
