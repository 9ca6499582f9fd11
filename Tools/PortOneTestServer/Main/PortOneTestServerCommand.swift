import ArgumentParser
import Foundation
import Logging
import PortOneTestServer

/// `sns-portone-test-server`: the PortOne (iamport REST API v1) compatible test server as a process, for the
/// local stack and end-to-end tests. Its `/__sandbox/` API has no authentication: bind it to loopback only.
@main
struct PortOneTestServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sns-portone-test-server",
        abstract: "A PortOne (iamport REST API v1) compatible test server with an unauthenticated /__sandbox/ API."
    )

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind (0 = any free port; see --address-file).")
    var port = 8190

    @Option(help: "imp_key accepted by /users/getToken (default: $SNS_PORTONE_IMP_KEY, else test_imp_key).")
    var impKey: String?

    @Option(help: "imp_secret of --imp-key (default: $SNS_PORTONE_IMP_SECRET, else test_imp_secret).")
    var impSecret: String?

    @Option(help: "Lifetime of issued access tokens, in seconds.")
    var tokenTtl = 1800

    @Option(help: "Default URL webhooks are POSTed to.")
    var webhookUrl: String?

    @Option(help: "After binding, write \"host:port\" to this file.")
    var addressFile: String?

    @Option(help: "Log level (trace, debug, info, notice, warning, error, critical).")
    var logLevel: String = "info"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard tokenTtl > 0 else { throw ValidationError("--token-ttl must be positive") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let key = impKey ?? environment["SNS_PORTONE_IMP_KEY"] ?? "test_imp_key"
        let secret = impSecret ?? environment["SNS_PORTONE_IMP_SECRET"] ?? "test_imp_secret"
        var logger = Logger(label: "portone-test-server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info

        let ledger = PortOneLedger()
        await ledger.addKey(key, secret: secret, tokenTTL: tokenTtl)
        let addressFile = self.addressFile
        let log = logger
        try await PortOneTestServer.run(
            ledger: ledger,
            host: host,
            port: port,
            webhookURL: webhookUrl,
            logger: logger
        ) { host, port in
            log.info("PortOne test server listening", metadata: ["address": "\(host):\(port)", "imp_key": "\(key)"])
            if let addressFile {
                do {
                    try "\(host):\(port)".write(toFile: addressFile, atomically: true, encoding: .utf8)
                } catch {
                    log.error("cannot write --address-file", metadata: ["path": "\(addressFile)", "error": "\(error)"])
                }
            }
        }
    }
}
