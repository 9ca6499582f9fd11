import Foundation
import SNSTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real `auth` (and `market`) executables: refuse bad configuration with a message naming the variable, becomes ready,
/// and shuts down cleanly on SIGTERM.
@Suite("Service process lifecycle")
struct ServiceProcessTests {
    func binary(_ name: String) throws -> URL {
        URL(fileURLWithPath: try TestEnvironment.binaryDirectory()).appendingPathComponent(name)
    }

    func validEnvironment(port: Int) throws -> [String: String] {
        let env = ProcessInfo.processInfo.environment
        return [
            "PATH": env["PATH"] ?? "/usr/bin:/bin",
            "SNS_HTTP_PORT": String(port),
            "SNS_DATABASE_URL": try TestEnvironment.databaseURL(),
            "SNS_KAFKA_BROKERS": try TestEnvironment.kafkaBrokers(),
            "SNS_API_KEY": try TestEnvironment.apiKey(),
            "SNS_JWT_PUBLIC_KEY_FILE": env["SNS_TEST_JWT_PUBLIC_KEY_FILE"] ?? "",
            "SNS_JWT_PRIVATE_KEY_FILE": env["SNS_TEST_JWT_PRIVATE_KEY_FILE"] ?? "",
            "SNS_MEDIA_SIGNING_KEY_FILE": env["SNS_TEST_MEDIA_SIGNING_KEY_FILE"] ?? "",
            "SNS_LOG_LEVEL": "warning",
        ]
    }

    /// Starts the executable with stderr on a pipe (`standardError`).
    func run(_ executable: URL, environment: [String: String]) throws -> ChildProcess {
        try ChildProcess.spawn(executable.path, environment: environment, standardError: .pipe)
    }

    @Test(arguments: ["SNS_DATABASE_URL", "SNS_API_KEY", "SNS_JWT_PRIVATE_KEY_FILE", "SNS_MEDIA_SIGNING_KEY_FILE"])
    func missingConfigurationExits78NamingTheVariable(variable: String) async throws {
        var environment = try validEnvironment(port: 1)
        environment[variable] = nil
        let process = try run(try binary("auth"), environment: environment)
        let message = String(decoding: process.standardError?.readAllRetryingInterrupts() ?? Data(), as: UTF8.self)
        #expect(await process.exit() == .exited(78))
        #expect(message.contains(variable.replacingOccurrences(of: "_FILE", with: "")), "\(message)")
    }

    /// The market executable's own settings: PortOne credentials are required, and the URL must be http(s).
    @Test(
        arguments: [("SNS_PORTONE_IMP_KEY", nil), ("SNS_PORTONE_IMP_SECRET", nil), ("SNS_PORTONE_URL", "ftp://pg")]
            as [(String, String?)])
    func marketRefusesBadPortOneSettings(variable: String, value: String?) async throws {
        var environment = try marketEnvironment(port: 1)
        environment[variable] = value
        let process = try run(try binary("market"), environment: environment)
        let message = String(decoding: process.standardError?.readAllRetryingInterrupts() ?? Data(), as: UTF8.self)
        #expect(await process.exit() == .exited(78))
        #expect(message.contains(variable), "\(message)")
        #expect(!message.contains("market-test-secret"))
    }

    func marketEnvironment(port: Int) throws -> [String: String] {
        var environment = try validEnvironment(port: port)
        environment["SNS_PORTONE_URL"] = try TestEnvironment.portOneURL()
        environment["SNS_PORTONE_IMP_KEY"] = "sns_test_imp_key"
        environment["SNS_PORTONE_IMP_SECRET"] = "market-test-secret"
        return environment
    }

    @Test(arguments: ["auth", "market"])
    func startsReadyAndStopsCleanlyOnSIGTERM(service: String) async throws {
        let port = try ListeningPorts.reserve()
        let environment = service == "market" ? try marketEnvironment(port: port) : try validEnvironment(port: port)
        let process = try run(try binary(service), environment: environment)
        defer { process.signal(SIGKILL) }
        var ready = false
        for _ in 0..<300 where !ready {  // hang guard: 30 s
            if let (_, response) = try? await URLSession.shared.data(
                from: URL(string: "http://127.0.0.1:\(port)/ready")!),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                ready = true
            } else {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(ready)
        process.signal(SIGTERM)
        #expect(await process.exit() == .exited(0))
    }
}
