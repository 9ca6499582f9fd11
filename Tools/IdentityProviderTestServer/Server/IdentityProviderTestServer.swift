import Foundation
import Hummingbird
import InProcessServer
import Logging
import ServiceLifecycle

/// The identity-provider test server: Firebase's and Apple's published keys and ID tokens signed with them, and
/// a Kakao-like access-token API (`IdentityProviderRoutes`), plus the unauthenticated sandbox API under
/// `/__sandbox/` (`IdentityProviderSandboxRoutes`). A test server only: never expose it.
package enum IdentityProviderTestServer {
    package static func makeApplication(
        provider: IdentityProvider,
        host: String = "127.0.0.1",
        port: Int = 8191,
        logger: Logger = Logger(label: "idp-test-server"),
        onServerRunning: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        IdentityProviderRoutes(provider: provider).add(to: router)
        IdentityProviderSandboxRoutes(provider: provider).add(to: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "idp-test-server"),
            onServerRunning: { channel in await onServerRunning(host, channel.localAddress?.port ?? port) },
            logger: logger
        )
    }

    /// Runs until SIGTERM or SIGINT, as the executable does.
    package static func run(
        provider: IdentityProvider, host: String, port: Int, logger: Logger,
        onServerRunning: @escaping @Sendable (_ host: String, _ port: Int) async -> Void = { _, _ in }
    ) async throws {
        try await makeApplication(
            provider: provider, host: host, port: port, logger: logger, onServerRunning: onServerRunning
        ).runService()
    }

    /// Starts the server in process on 127.0.0.1 and a free port, runs `body` with its base URL
    /// (`http://127.0.0.1:<port>`), then shuts it down (graceful, bounded by `shutdownTimeout`).
    package static func withRunningServer<T>(
        provider: IdentityProvider,
        logger: Logger? = nil,
        shutdownTimeout: Duration = .seconds(5),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (_ baseURL: String) async throws -> T
    ) async throws -> T {
        let logger =
            logger
            ?? {
                var logger = Logger(label: "idp-test-server")
                logger.logLevel = .warning
                return logger
            }()
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = makeApplication(provider: provider, host: "127.0.0.1", port: 0, logger: logger) { _, port in
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
            result = .success(try await body("http://127.0.0.1:\(port)"))
        } catch {
            result = .failure(error)
        }
        await serviceGroup.triggerGracefulShutdown()
        await ServerTask.end(server, within: shutdownTimeout, logger: logger)
        return try result.get()
    }

    package struct ServerDidNotStart: Error {}
}
