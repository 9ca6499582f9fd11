import ArgumentParser
import Foundation
import SNSAdmin
import SNSKafka
import SNSPlatform

/// Unbuffered: each event appears at once, also in a pipe (`| jq`).
private func writeLine(_ line: String) {
    Output.write(Data((line + "\n").utf8))
}

struct TailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract:
            "Print a topic's events (type, key, id, time, request id), filtered by type and key; --follow waits for new ones."
    )

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The topic, e.g. sns.posts.") var topic: String
    @Option(name: .customLong("type"), help: "Only this event type (repeatable).") var types: [String] = []
    @Option(help: "Only events with this key (aggregate id).") var key: String?
    @Option(help: "Start this many messages before the end of each partition (default: all history).") var last: Int?
    @Flag(help: "Keep waiting for new messages (Ctrl-C stops).") var follow = false
    @Option(help: "Stop after printing this many events.") var limit: Int?
    @Flag(help: "Print each event's whole JSON too.") var payload = false

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if let last, last < 1 { throw ValidationError("--last must be at least 1") }
    }

    func run() async throws {
        let logger = AdminRuntime.logger(verbose: connection.verbose)
        let configuration = try connection.kafkaConfiguration()
        let start: KafkaPartitionReader.Start = last.map { .last($0) } ?? .beginning
        var printed = 0
        func emit(_ message: KafkaConsumerMessage) throws -> Bool {
            let view = EventView(message, withPayload: payload || connection.json)
            guard view.matches(types: types, key: key) else { return true }
            if connection.json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                encoder.dateEncodingStrategy = .custom(APIDateFormat.encode)
                writeLine(String(decoding: try encoder.encode(view), as: UTF8.self))
            } else {
                writeLine(view.line)
                if payload, let body = view.payload { writeLine("    \(body)") }
            }
            printed += 1
            return limit.map { printed < $0 } ?? true
        }
        // The end of each partition before reading history: following starts after whatever history showed, or here.
        let admin = try KafkaAdmin(configuration: configuration, logger: logger)
        let marks: [Int32: KafkaWatermarks]
        do { marks = try await admin.watermarks(topic: topic) } catch {
            await admin.close(); throw AdminError("cannot read \(topic): \(error)")
        }
        await admin.close()
        let history: [KafkaConsumerMessage]
        do {
            history = try await KafkaPartitionReader.readAll(
                configuration: configuration, topic: topic, logger: logger, from: start)
        } catch {
            throw AdminError("cannot read \(topic): \(error)")
        }
        for message in history.sorted(by: {
            ($0.timestamp ?? .distantPast, $0.partition, $0.offset) < (
                $1.timestamp ?? .distantPast, $1.partition, $1.offset
            )
        }) {
            guard try emit(message) else { return }
        }
        guard follow else { return }
        var next: [Int32: Int64] = marks.mapValues(\.high)
        for message in history { next[message.partition] = max(next[message.partition] ?? 0, message.offset + 1) }
        let reader = try KafkaPartitionReader(
            configuration: configuration,
            assignments: next.map { partition, offset in
                KafkaTopicPartitionOffset(topic: topic, partition: partition, offset: .absolute(offset))
            }, logger: logger)
        while !Task.isCancelled {
            guard let message = try await reader.next(timeout: .seconds(1)) else { continue }
            guard try emit(message) else { break }
        }
        await reader.close()
    }
}
