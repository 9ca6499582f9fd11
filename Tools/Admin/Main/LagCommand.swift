import ArgumentParser
import Foundation
import SNSAdmin

/// `sns-admin lag`: how far each consumer group is behind the topics it reads.
struct LagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lag",
        abstract:
            "Messages each consumer group has not yet committed past, per topic (exit 3 with --check when any lags).")

    @OptionGroup var connection: ConnectionOptions
    @Option(name: .customLong("group"), help: "Only this consumer group (repeatable; default: every group).")
    var groups: [String] = []
    @Flag(help: "Exit with status 3 when any group lags (for scripts waiting for the pipeline to drain).")
    var check = false

    func run() async throws {
        let logger = AdminRuntime.logger(verbose: connection.verbose)
        let lag = try await ConsumerLag.measure(
            groups: groups, kafka: try connection.kafkaConfiguration(), logger: logger)
        if connection.json {
            try Output.json(lag)
        } else {
            Output.table(
                ["group", "topic", "lag", "partitions never committed"],
                lag.rows.map { [$0.group, $0.topic, "\($0.lag)", "\($0.uncommittedPartitions)"] })
        }
        if check && !lag.caughtUp { throw ExitCode(3) }
    }
}
