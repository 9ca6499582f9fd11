import ArgumentParser
import Foundation
import SNSAdmin

struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox", abstract: "Outbox state per service.", subcommands: [Status.self],
        defaultSubcommand: Status.self)

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pending and published rows, and the age of the oldest pending one, per service.")

        @OptionGroup var connection: ConnectionOptions
        @Option(help: "Only this service (repeatable).") var service: [String] = []

        func run() async throws {
            let services = try service.isEmpty ? ServiceCatalog.services : service.map(ServiceCatalog.service(named:))
            let logger = AdminRuntime.logger(verbose: connection.verbose)
            let statuses = try await AdminRuntime.withDatabase(url: try connection.database(), logger: logger) {
                client in
                try await OutboxInspector.status(of: services, client: client, logger: logger)
            }
            if connection.json { return try Output.json(statuses) }
            Output.table(
                ["service", "pending", "published", "oldest pending", "last published"],
                statuses.map { status in
                    guard status.migrated else { return [status.service, "-", "-", "not migrated", "-"] }
                    return [
                        status.service, "\(status.pending)", "\(status.published)",
                        status.oldestPendingAgeSeconds.map { String(format: "%.1f s", $0) } ?? "-",
                        status.lastPublishedAt.map { ISO8601DateFormatter().string(from: $0) } ?? "-",
                    ]
                })
        }
    }
}
