import ArgumentParser
import Foundation
import SNSAdmin

struct RepublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "republish",
        abstract: "Send a service's published outbox history to Kafka again (for a broker that lost its data).",
        discussion: """
            Rows go out in outbox order with their original keys, headers and event ids. Consumers are idempotent, so
            events they already applied are skipped. Pending rows are left to the outbox relay. The services delete
            published rows older than SNS_OUTBOX_RETENTION_HOURS (a week by default): those cannot be republished.
            """)

    @OptionGroup var connection: ConnectionOptions
    @Option(
        help:
            "The service whose outbox to republish (\(ServiceCatalog.services.map(\.name).joined(separator: ", "))), or 'all'."
    )
    var service: String
    @Option(help: "Only events created at or after this time (ISO-8601, or 30m / 2h / 1d ago).") var since:
        TimeArgument?
    @Option(help: "Only events created before this time.") var until: TimeArgument?
    @Option(name: .customLong("type"), help: "Only this event type (repeatable), e.g. post-created.") var types:
        [String] = []
    @Flag(help: "Print what would be sent, send nothing.") var dryRun = false

    func validate() throws {
        for type in types where EventTypeNames.all.contains(type) == false {
            throw ValidationError(
                "unknown event type '\(type)' (known: \(EventTypeNames.all.sorted().joined(separator: ", ")))")
        }
    }

    func run() async throws {
        let services = try service == "all" ? ServiceCatalog.services : [ServiceCatalog.service(named: service)]
        let filter = Republisher.Filter(since: since?.date, until: until?.date, eventTypes: types)
        let logger = AdminRuntime.logger(verbose: connection.verbose)
        let kafka = dryRun ? nil : try connection.kafkaConfiguration()
        let dryRun = self.dryRun
        let reports = try await AdminRuntime.withDatabase(url: try connection.database(), logger: logger) { client in
            let republisher = Republisher(client: client, logger: logger)
            if dryRun {
                var reports: [Republisher.Report] = []
                for service in services { reports.append(try await republisher.plan(service: service, filter: filter)) }
                return reports
            }
            guard let kafka else { throw AdminError("no broker configuration") }
            return try await AdminRuntime.withProducer(configuration: kafka, logger: logger) { producer in
                var reports: [Republisher.Report] = []
                for service in services {
                    let progress = ProgressLine(label: "republishing \(service.name)")
                    reports.append(
                        try await republisher.run(service: service, filter: filter, producer: producer) { done, total in
                            progress.update(done, of: total)
                        })
                    progress.finish()
                }
                return reports
            }
        }
        if connection.json { return try Output.json(reports) }
        Output.table(
            ["service", dryRun ? "would send" : "sent", "by topic"],
            reports.map { report in
                [
                    report.service, "\(dryRun ? report.matched : report.republished)",
                    report.byTopic.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
                ]
            })
    }
}

enum EventTypeNames {
    static let all: Set<String> = Set(SNSAdmin.knownEventTypes)
}
