import ArgumentParser
import Foundation
import SNSAdmin
import SNSKafka
import SNSPlatform

struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics",
        abstract: "The system's topics with partitions and message counts (per partition with --json).")

    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Every topic in the cluster, not only the system's (sns.*).") var all = false

    struct TopicRow: Encodable {
        var name: String
        var partitions: Int
        var messages: Int64
        var watermarks: [String: [Int64]]
    }

    func run() async throws {
        let logger = AdminRuntime.logger(verbose: connection.verbose)
        let admin = try KafkaAdmin(configuration: try connection.kafkaConfiguration(), logger: logger)
        var rows: [TopicRow] = []
        do {
            let known = Set(Topic.catalog.map(\.name))
            for topic in try await admin.topics() where all || known.contains(topic.name) {
                let marks = try await admin.watermarks(topic: topic.name)
                rows.append(
                    TopicRow(
                        name: topic.name, partitions: topic.partitions,
                        messages: marks.values.reduce(0) { $0 + $1.high - $1.low },
                        watermarks: Dictionary(
                            uniqueKeysWithValues: marks.map { ("\($0.key)", [$0.value.low, $0.value.high]) })))
            }
            await admin.close()
        } catch {
            await admin.close()
            throw AdminError("cannot read the cluster's topics: \(error)")
        }
        if connection.json { return try Output.json(rows) }
        Output.table(
            ["topic", "partitions", "messages"], rows.map { [$0.name, "\($0.partitions)", "\($0.messages)"] })
    }
}
