import Foundation
import SNSTestSupport

/// What one run of the real `sns-admin` executable printed, and how it ended.
struct AdminRun: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs `sns-admin` against a database and broker, as an operator would (configuration from the environment).
/// The run (seconds, for `tail`, `rebuild` …) blocks a Dispatch thread, never one of the Swift concurrency pool's
/// few threads: in-process services of other tests hold outbox-relay locks in transactions that need those threads.
enum AdminProcess {
    static func run(_ arguments: [String], databaseURL: String, brokers: String, kafkaProperties: String? = nil)
        async throws -> AdminRun
    {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try runBlocking(
                            arguments, databaseURL: databaseURL, brokers: brokers, kafkaProperties: kafkaProperties)
                    })
            }
        }
    }

    private static func runBlocking(
        _ arguments: [String], databaseURL: String, brokers: String, kafkaProperties: String?
    ) throws -> AdminRun {
        var environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "SNS_DATABASE_URL": databaseURL,
            "SNS_KAFKA_BROKERS": brokers,
        ]
        environment["SNS_KAFKA_PROPERTIES"] = kafkaProperties
        let binary = URL(fileURLWithPath: try TestEnvironment.binaryDirectory()).appendingPathComponent("sns-admin")
            .path
        let process = try ChildProcess.spawn(
            binary, arguments: arguments, environment: environment,
            standardOutput: .pipe, standardError: .pipe)
        // stderr is small (a line on failure, progress bars): read stdout to its end first, then stderr.
        let stdout = process.standardOutput?.readAllRetryingInterrupts() ?? Data()
        let stderr = process.standardError?.readAllRetryingInterrupts() ?? Data()
        let status: Int32 =
            switch process.waitUntilExit() {
            case .exited(let code): code
            case .signalled(let number): 128 + number
            }
        return AdminRun(
            status: status, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
