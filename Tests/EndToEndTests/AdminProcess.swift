import Foundation
import SNSTestSupport

/// What one run of the real `sns-admin` executable printed, and how it ended.
struct AdminRun: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs `sns-admin` against a database and broker, as an operator would (configuration from the environment).
enum AdminProcess {
    static func run(_ arguments: [String], databaseURL: String, brokers: String, kafkaProperties: String? = nil) throws -> AdminRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try TestEnvironment.binaryDirectory()).appendingPathComponent("sns-admin")
        process.arguments = arguments
        var environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "SNS_DATABASE_URL": databaseURL,
            "SNS_KAFKA_BROKERS": brokers,
        ]
        environment["SNS_KAFKA_PROPERTIES"] = kafkaProperties
        process.environment = environment
        let (out, err) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // stderr is small (a line on failure, progress bars): read stdout to its end first, then stderr.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return AdminRun(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                        stderr: String(decoding: stderr, as: UTF8.self))
    }
}
