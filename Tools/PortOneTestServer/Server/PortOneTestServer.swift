import Foundation
import Hummingbird
import InProcessServer
import Logging
import NIOCore
import ServiceLifecycle

/// A PortOne (iamport REST API v1) compatible test server: `POST /users/getToken`, `GET /payments/{imp_uid}`,
/// `POST /payments/cancel`, webhook delivery, and the unauthenticated sandbox API under `/__sandbox/`
/// (a test server only: never expose it).
package enum PortOneTestServer {
    /// The application serving `ledger` on `host:port` (port 0 = any free port).
    package static func makeApplication(
        ledger: PortOneLedger,
        host: String = "127.0.0.1",
        port: Int = 8190,
        logger: Logger = Logger(label: "portone-test-server"),
        onServerRunning: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: PortOneRequestContext.self)
        router.add(middleware: CallLogMiddleware())
        PortOneAPIRoutes(ledger: ledger).add(to: router)
        SandboxRoutes(ledger: ledger).add(to: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "portone-test-server"),
            onServerRunning: { channel in
                await onServerRunning(host, channel.localAddress?.port ?? port)
            },
            logger: logger
        )
    }

    /// Runs the server until SIGTERM or SIGINT (or the task is cancelled), as the executable does.
    /// `webhookURL`, when given, becomes the ledger's default webhook URL.
    package static func run(
        ledger: PortOneLedger,
        host: String = "127.0.0.1",
        port: Int = 8190,
        webhookURL: String? = nil,
        logger: Logger = Logger(label: "portone-test-server"),
        onServerRunning: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) async throws {
        if let webhookURL { await ledger.setDefaultWebhookURL(webhookURL) }
        let app = makeApplication(
            ledger: ledger, host: host, port: port, logger: logger, onServerRunning: onServerRunning)
        try await app.runService()
    }

    /// Starts the server in process on 127.0.0.1 and a free port, runs `body` with its base URL
    /// (`http://127.0.0.1:<port>`, no trailing slash), then shuts the server down and returns `body`'s result.
    ///
    /// Shutdown is graceful (idle connections closed, in-flight requests finished) but bounded: after
    /// `shutdownTimeout` the server task is cancelled, and after another `shutdownTimeout` it is left behind
    /// (`ServerTask`), so a server that never stops cannot hang the caller.
    /// `webhookURL`, when given, becomes the ledger's default webhook URL. The logger defaults to warnings only.
    package static func withRunningServer<T>(
        ledger: PortOneLedger,
        webhookURL: String? = nil,
        logger: Logger? = nil,
        shutdownTimeout: Duration = .seconds(5),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (_ baseURL: URL) async throws -> T
    ) async throws -> T {
        if let webhookURL { await ledger.setDefaultWebhookURL(webhookURL) }
        let logger = logger ?? quietLogger()
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = makeApplication(ledger: ledger, host: "127.0.0.1", port: 0, logger: logger) { _, port in
            portContinuation.yield(port)
        }
        let serviceGroup = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        let server = Task<Void, any Error> {
            defer { portContinuation.finish() }
            try await serviceGroup.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await server.value
            throw ServerDidNotStart()
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await body(URL(string: "http://127.0.0.1:\(port)")!))
        } catch {
            result = .failure(error)
        }
        await serviceGroup.triggerGracefulShutdown()
        await ServerTask.end(server, within: shutdownTimeout, logger: logger)
        return try result.get()
    }

    /// Thrown by `withRunningServer` when the server ended without ever listening.
    package struct ServerDidNotStart: Error {}

    static func quietLogger() -> Logger {
        var logger = Logger(label: "portone-test-server")
        logger.logLevel = .warning
        return logger
    }
}
