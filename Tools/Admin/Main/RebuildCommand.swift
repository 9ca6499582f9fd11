import ArgumentParser
import Foundation
import SNSAdmin
import SNSKafka

struct RebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract:
            "Empty one read model and let its consumers rebuild it from the events (stop that service's consumers first).",
        discussion: """
            Projections: \(Projection.all.map { "\($0.name) (group \($0.group))" }.joined(separator: ", ")).
            Resets the group to the beginning of its topics (refused while its consumers run), empties the read model
            and forgets the group's processed records in one transaction. Start the service afterwards; with --wait the
            tool shows the rebuild's progress and the final row counts and checksum.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The projection.") var projection: String
    @Flag(help: "Show what would be re-read and the current row counts, change nothing.") var dryRun = false
    @Option(help: "Seconds to wait for every partition when joining the group before refusing.") var joinTimeout: Int =
        30
    @Flag(help: "After emptying, wait for the consumers to catch up (progress bar), then print the counts.") var wait =
        false
    @Option(help: "With --wait: give up after this many seconds.") var timeout: Int = 3600

    func run() async throws {
        let projection = try Projection.named(self.projection)
        let logger = AdminRuntime.logger(verbose: connection.verbose)
        let joinTimeout = self.joinTimeout
        let kafka = try connection.kafkaConfiguration()
        let (dryRun, wait, timeout, json) = (self.dryRun, self.wait, self.timeout, connection.json)
        struct Result: Encodable {
            var projection: String, group: String, dryRun: Bool, messages: Int64, before: Rebuild.Summary,
                after: Rebuild.Summary?
            enum CodingKeys: String, CodingKey { case projection, group, dryRun = "dry_run", messages, before, after }
        }
        let result = try await AdminRuntime.withDatabase(url: try connection.database(), logger: logger) { client in
            let before = try await Rebuild.summary(projection, client: client, logger: logger)
            if dryRun {
                let total = try await Rebuild.progress(projection, kafka: kafka, logger: logger).total
                return Result(
                    projection: projection.name, group: projection.group, dryRun: true, messages: total, before: before,
                    after: nil)
            }
            let messages = try await Rebuild.start(
                projection, kafka: kafka, client: client, logger: logger, joinTimeout: .seconds(joinTimeout))
            guard wait else {
                return Result(
                    projection: projection.name, group: projection.group, dryRun: false, messages: messages,
                    before: before, after: nil)
            }
            if !json {
                FileHandle.standardError.write(
                    Data(
                        "emptied; start the \(projection.schema) service now — waiting for it to re-read \(messages) messages\n"
                            .utf8))
            }
            let bar = ProgressLine(label: "rebuilding \(projection.name)")
            let deadline = Date().addingTimeInterval(TimeInterval(timeout))
            while true {
                let (done, total) = try await Rebuild.progress(projection, kafka: kafka, logger: logger)
                bar.update(Int(done), of: Int(total))
                if done >= total { break }
                guard Date() < deadline else {
                    bar.finish(); throw AdminError("not caught up after \(timeout) s (\(done)/\(total))")
                }
                try await Task.sleep(for: .milliseconds(500))
            }
            bar.finish()
            let after = try await Rebuild.summary(projection, client: client, logger: logger)
            return Result(
                projection: projection.name, group: projection.group, dryRun: false, messages: messages, before: before,
                after: after)
        }
        if json { return try Output.json(result) }
        func counts(_ summary: Rebuild.Summary) -> String {
            summary.rows.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                + " checksum=\(summary.checksum)"
        }
        print("before: \(counts(result.before))")
        if dryRun { return print("dry run: \(result.messages) messages would be re-read by \(result.group)") }
        if let after = result.after {
            print("after:  \(counts(after))")
            print(
                after.checksum == result.before.checksum
                    ? "the rebuilt read model is identical" : "the rebuilt read model differs from before")
        } else {
            print(
                "emptied; \(result.group) re-reads \(result.messages) messages when the \(projection.schema) service starts (`rebuild --wait` shows progress)"
            )
        }
    }
}
