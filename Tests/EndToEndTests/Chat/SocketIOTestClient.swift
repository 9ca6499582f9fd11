import Foundation
import SNSTestSupport
import Testing

/// A real Socket.IO client (python-socketio from PyPI, installed by `./sns test`) run as a child process by
/// `socketio_client.py`: it joins a room's namespace, posts messages over REST as configured, and reports what the
/// socket received. Used by the chat socket tests and by the twins of the apps that listen on a room's socket.
enum SocketIOTestClient {
    struct Outcome: Decodable {
        var transport: String?
        var refusal: Refusal?
        var posted: [String]
        var events: [[String: JSONValue]]

        /// Each received `chat` event's payload as the JSON bytes the socket delivered, for decoding with an app's
        /// own model.
        var eventData: [Data] = []

        struct Refusal: Decodable { var message: String }

        enum CodingKeys: String, CodingKey { case transport, refusal, posted, events }
    }

    /// Runs the client with `config` (keys: see `socketio_client.py`) and returns what it saw.
    static func run(_ config: [String: Any]) async throws -> Outcome {
        let output = try await runScript("socketio_client.py", config)
        var outcome = try JSONDecoder().decode(Outcome.self, from: output)
        let raw = try JSONSerialization.jsonObject(with: output) as? [String: Any]
        outcome.eventData = try (raw?["events"] as? [Any] ?? []).map { try JSONSerialization.data(withJSONObject: $0) }
        return outcome
    }

    /// Runs one of this folder's Python clients with `config` as its argument; returns what it printed.
    static func runScript(_ name: String, _ config: [String: Any]) async throws -> Data {
        let python = try #require(
            ProcessInfo.processInfo.environment["SNS_TEST_PYTHON"], "SNS_TEST_PYTHON (set by ./sns test)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(name)
        let json = String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
        let process = try ChildProcess.spawn(
            python, arguments: [script.path, json], environment: ["PATH": "/usr/bin:/bin"], standardOutput: .pipe,
            standardError: .pipe)
        // The client runs for seconds: read its pipes on a Dispatch thread, never on one of the concurrency pool's
        // (two on this machine; blocking them stalls every other test of the process).
        let (output, errorBytes) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let output = process.standardOutput?.readAllRetryingInterrupts() ?? Data()
                let errors = process.standardError?.readAllRetryingInterrupts() ?? Data()
                continuation.resume(returning: (output, errors))
            }
        }
        let errors = String(decoding: errorBytes, as: UTF8.self)
        #expect(await process.exit() == .exited(0), "\(errors)")
        return output
    }
}
