import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PostgresNIO
import SNSPlatform

/// The machine's ceilings, measured in the same run as the endpoints they are compared with (bench/endpoints.sh):
/// `GET /constant` is a Hummingbird 2 route returning a constant, `GET /select1` runs `SELECT 1` through a
/// PostgresNIO `PostgresClient` pool of the services' default size, split per event loop as posts' requests use it
/// (`LoopLocalPools`; `SNS_DATABASE_POOLS=shared` for one pool, as the services). No middleware, no JSON, no
/// authentication.
struct CeilingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ceiling",
        abstract: "Serve GET /constant and GET /select1 on 127.0.0.1 until SIGINT/SIGTERM."
    )

    @Option(help: "Port on 127.0.0.1.") var port: Int = 8199
    @Option(help: "postgres://user:password@host:port/database (as SNS_DATABASE_URL: `?host=/dir` for a socket)")
    var databaseURL: String
    @Option(help: "PostgreSQL connections in the pool (the services' SNS_DATABASE_MAX_CONNECTIONS default is 10).")
    var poolSize: Int = 10

    func run() async throws {
        var logger = Logger(label: "sns-bench.ceiling")
        logger.logLevel = .warning
        // Parsed as the services parse SNS_DATABASE_URL, so the ceiling reaches PostgreSQL the way the stack does.
        var configuration = try DatabaseConfiguration(url: databaseURL, variable: "--database-url").clientConfiguration
        configuration.options.size(maximum: poolSize, warm: 0)  // as the services' shared pools (decision 0029)
        let shared = DatabasePool(PostgresClient(configuration: configuration, backgroundLogger: logger))
        let pools = LoopLocalPools(
            shared: shared, configuration: configuration,
            perLoop: ProcessInfo.processInfo.environment["SNS_DATABASE_POOLS"] != "shared", logger: logger)

        let router = Router()
        router.get("constant") { _, _ in "ok" }
        router.get("select1") { _, context -> String in
            let rows = try await pools.current.query("SELECT 1::int4", logger: context.logger)
            for try await value in rows.decode(Int32.self) { return String(value) }
            throw HTTPError(.internalServerError)
        }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            services: [shared] + pools.perLoopPools,
            logger: logger
        )
        try await app.runService()
    }
}
