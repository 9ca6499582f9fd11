import ArgumentParser
import Foundation
import SNSAdmin
import SNSKafka
import SNSPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// `sns-admin`: the operator's tool for the event pipeline (README "Operating the event pipeline").
@main
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sns-admin",
        abstract:
            "Inspect, replay and repair the SNS event pipeline (outboxes, topics, consumer groups, dead letters).",
        subcommands: [
            CatalogCommand.self, TopicsCommand.self, TailCommand.self, OutboxCommand.self, RepublishCommand.self,
            ReplayCommand.self, RebuildCommand.self, DeadLetterCommand.self, LagCommand.self,
        ]
    )

    /// A reader that goes away (`sns-admin … | head`) turns a write into EPIPE, which `Output.write` handles (exit 0),
    /// rather than a signal or a trap: the same whatever the calling shell does with SIGPIPE.
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        await main(nil)
    }
}

/// Where the database and the broker are: flags, else the services' own variables.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "PostgreSQL URL (default: $SNS_DATABASE_URL).")
    var databaseURL: String?

    @Option(help: "Kafka bootstrap servers (default: $SNS_KAFKA_BROKERS).")
    var brokers: String?

    @Flag(help: "Print JSON on stdout (for scripts) instead of tables.")
    var json = false

    @Flag(help: "Log what the tool does on stderr.")
    var verbose = false

    func database() throws -> String {
        guard let url = databaseURL ?? ProcessInfo.processInfo.environment["SNS_DATABASE_URL"], !url.isEmpty else {
            throw ValidationError("no database: pass --database-url or set SNS_DATABASE_URL")
        }
        return url
    }

    func kafka() throws -> String {
        guard let brokers = brokers ?? ProcessInfo.processInfo.environment["SNS_KAFKA_BROKERS"], !brokers.isEmpty else {
            throw ValidationError("no broker: pass --brokers or set SNS_KAFKA_BROKERS")
        }
        return brokers
    }

    /// The broker and extra librdkafka properties from `SNS_KAFKA_PROPERTIES` (`k=v;k=v`, as the services read
    /// it: e.g. TLS/SASL settings of a real cluster, or `debug=cgrp` when something hangs).
    func kafkaConfiguration() throws -> KafkaConfiguration {
        let properties = try PlatformConfiguration.parseProperties(
            ProcessInfo.processInfo.environment["SNS_KAFKA_PROPERTIES"], variable: "SNS_KAFKA_PROPERTIES")
        return KafkaConfiguration(bootstrapServers: try kafka(), clientId: "sns-admin", properties: properties)
    }
}

enum Output {
    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        write(try encoder.encode(value) + Data("\n".utf8))
    }

    /// Writes to standard output at once. A reader that went away (`sns-admin … | head`) ends the tool quietly with
    /// status 0, as a pipe's writer should: Foundation's `FileHandle.write` traps on that error instead.
    static func write(_ data: Data) {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno == EINTR {
                    continue
                } else if errno == EPIPE {
                    exit(0)
                } else {
                    FileHandle.standardError.write(
                        Data("sns-admin: cannot write: \(String(cString: strerror(errno)))\n".utf8))
                    exit(1)
                }
            }
        }
    }

    /// A warning on standard error (kept out of `--json` output).
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("sns-admin: warning: \(message)\n".utf8))
    }

    /// A plain aligned table.
    static func table(_ header: [String], _ rows: [[String]]) {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            print(
                row.indices.map {
                    $0 == row.count - 1 ? row[$0] : row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0)
                }
                .joined(separator: "  "))
        }
    }
}

/// Dates on the command line: ISO-8601 (`2026-11-22T10:00:00Z`) or relative (`30m`, `2h`, `1d` ago).
struct TimeArgument: ExpressibleByArgument, Sendable {
    let date: Date

    init?(argument: String) {
        if let date = ISO8601DateFormatter().date(from: argument) {
            self.date = date
            return
        }
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        guard let unit = argument.last.flatMap({ units[$0] }), let amount = Double(argument.dropLast()), amount >= 0
        else { return nil }
        self.date = Date().addingTimeInterval(-amount * unit)
    }
}
