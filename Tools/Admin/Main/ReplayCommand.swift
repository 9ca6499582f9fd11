import ArgumentParser
import Foundation
import SNSAdmin
import SNSKafka

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Re-deliver history to one consumer group (its consumers must be stopped).",
        discussion: """
            Moves the group's committed offsets back: to the beginning, to an offset, or to a time (resolved from the
            group's own processed-event records). Events the group already applied are skipped by its idempotency
            check unless --reapply, which also forgets those records so every re-delivered event is applied again.
            Refuses while the group has other live members. Start the service's consumers afterwards.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The consumer group, e.g. social-projections.") var group: String
    @Option(help: "Only this topic (repeatable; default: every topic the group consumes).") var topic: [String] = []
    @Flag(help: "From the first stored message.") var fromBeginning = false
    @Option(help: "From this offset in every partition (clamped to what is stored).") var offset: Int64?
    @Option(help: "From the first message the group applied at or after this time (ISO-8601, or 30m / 2h / 1d ago).")
    var since: TimeArgument?
    @Flag(help: "Apply re-delivered events again (forget the group's processed records from there on).") var reapply =
        false
    @Flag(help: "Print the plan, change nothing.") var dryRun = false
    @Option(help: "Seconds to wait for every partition when joining the group before refusing.") var joinTimeout: Int =
        30

    func validate() throws {
        guard [fromBeginning, offset != nil, since != nil].filter({ $0 }).count == 1 else {
            throw ValidationError("choose exactly one of --from-beginning, --offset, --since")
        }
    }

    func run() async throws {
        let start: ReplayStart = fromBeginning ? .beginning : offset.map { .offset($0) } ?? .since(since!.date)
        let logger = AdminRuntime.logger(verbose: connection.verbose)
        let joinTimeout = self.joinTimeout
        let kafka = try connection.kafkaConfiguration()
        let (group, topics, reapply, dryRun) = (self.group, self.topic, self.reapply, self.dryRun)
        let (plan, forgotten) = try await AdminRuntime.withDatabase(url: try connection.database(), logger: logger) {
            client in
            let plan = try await Replay.plan(
                group: group, topics: topics, start: start, reapply: reapply,
                kafka: kafka, client: client, logger: logger)
            if case .since(let date) = start,
                let oldest = try await Replay.recordsPruned(since: date, group: group, client: client, logger: logger)
            {
                Output.warn(
                    "\(group) keeps processed-event records from \(oldest) on (older ones were pruned, SNS_PROCESSED_EVENTS_RETENTION_HOURS): the replay starts at the first message it applied since then; use --offset or --from-beginning to go further back"
                )
            }
            if dryRun { return (plan, 0) }
            return (
                plan,
                try await Replay.apply(
                    plan, kafka: kafka, client: client, logger: logger, joinTimeout: .seconds(joinTimeout))
            )
        }
        if connection.json {
            struct Result: Encodable {
                var plan: ReplayPlan; var dryRun: Bool; var forgotten: Int; var redeliver: Int64
                enum CodingKeys: String, CodingKey { case plan, dryRun = "dry_run", forgotten, redeliver }
            }
            return try Output.json(Result(plan: plan, dryRun: dryRun, forgotten: forgotten, redeliver: plan.total))
        }
        Output.table(
            ["topic", "partition", "committed", "from", "end", "re-deliver"],
            plan.entries.map {
                [
                    $0.topic, "\($0.partition)", $0.committed.map(String.init) ?? "-", "\($0.from)", "\($0.high)",
                    "\($0.redeliver)",
                ]
            })
        print(
            dryRun
                ? "dry run: \(plan.total) messages would be re-delivered to \(group)\(reapply ? " and applied again" : "")"
                : "\(group) will re-read \(plan.total) messages when its consumers start\(reapply ? "; \(forgotten) processed records forgotten" : "")"
        )
    }
}
