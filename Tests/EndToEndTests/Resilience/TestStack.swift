import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The test stack's processes, for the resilience tests: who runs where (the profile's pid files and the catalog's
/// ports), signals, and `./sns` commands against the same profile. Only `./sns test`'s second part sets
/// `SNS_TEST_RESILIENCE`: these tests kill, restart and cut off parts of the shared stack, so they run alone.
enum TestStack {
    static var isResilienceRun: Bool { ProcessInfo.processInfo.environment["SNS_TEST_RESILIENCE"] == "1" }

    static func stateDirectory() throws -> URL {
        guard let state = ProcessInfo.processInfo.environment["SNS_TEST_STATE_DIR"], !state.isEmpty else {
            throw TestEnvironment.Missing(variable: "SNS_TEST_STATE_DIR")
        }
        return URL(fileURLWithPath: state)
    }

    /// The repository: the state folder is `<root>/.local/<profile>`.
    static func root() throws -> URL {
        try stateDirectory().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Replicas per service as `./sns test` started them (`SNS_TEST_SCALE`, e.g. `posts=3,social=2,`).
    static func replicas(_ service: String) -> Int {
        let scale = ProcessInfo.processInfo.environment["SNS_TEST_SCALE"] ?? ""
        for pair in scale.split(separator: ",") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, parts[0] == service, let count = Int(parts[1]) { return count }
        }
        return 1
    }

    /// The process name of a replica (`posts`, `posts-2`, …), as `./sns` names its pid and log files.
    static func processName(_ service: String, replica: Int) -> String {
        replica == 1 ? service : "\(service)-\(replica)"
    }

    /// Every replica of every service: (service, replica).
    static func allReplicas() -> [(service: String, replica: Int)] {
        SystemCatalog.services.flatMap { service in
            (1...replicas(service.name)).map { (service.name, $0) }
        }
    }

    /// A replica's direct URL: the profile's port base (auth's port less its offset) + offset + 10·(replica-1).
    static func url(_ service: String, replica: Int) throws -> URL {
        guard let auth = URL(string: try TestEnvironment.authURL()), let authPort = auth.port,
            let entry = SystemCatalog.services.first(where: { $0.name == service })
        else { throw TestEnvironment.Missing(variable: "SNS_TEST_AUTH_URL") }
        let base = authPort - SystemCatalog.auth.localPortOffset
        return URL(string: "http://127.0.0.1:\(base + entry.localPortOffset + 10 * (replica - 1))")!
    }

    static func pid(_ process: String) throws -> pid_t {
        let file = try stateDirectory().appendingPathComponent("run/\(process).pid")
        let text = try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let pid = pid_t(text) else { throw StackError("no pid in \(file.path)") }
        return pid
    }

    /// Whether the process still runs. A process that has exited but that its parent has not reaped yet (a zombie)
    /// has ended: the services are started detached, so their parent is the machine's init, which may reap late (on
    /// the development VMs ~2 s after the exit was seen).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        // /proc/<pid>/stat: "pid (comm) state …"; the command name may hold spaces and parentheses.
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.range(of: ") ", options: .backwards)
        else { return true }
        return stat[close.upperBound...].first != "Z"
    }

    /// Runs `./sns <arguments>` on this profile (the test run already holds the profile's lock) and waits for it.
    static func sns(_ arguments: [String]) async throws {
        try await run(["./sns"] + arguments)
    }

    /// Runs one of `deploy/local/lib.sh`'s functions on this profile (e.g. `stop_postgres`).
    static func lib(_ function: String) async throws {
        try await run(["bash", "-c", "ROOT=\"$PWD\"; source deploy/local/lib.sh; \(function)"])
    }

    private static func run(_ command: [String]) async throws {
        let root = try root()
        let log = try stateDirectory().appendingPathComponent("logs/resilience-commands.log").path
        var environment = ProcessInfo.processInfo.environment
        environment["SNS_PROFILE"] = "test"
        environment["SNS_HOLDS_PORTS_LOCK"] = "1"
        let child = try ChildProcess.spawn(
            "/usr/bin/env", arguments: ["bash", "-c", "cd \"$0\" && exec \"$@\"", root.path] + command,
            environment: environment, standardOutput: .file(log), standardError: .file(log))
        let end = await child.exit()
        guard case .exited(0) = end else {
            throw StackError("\(command.joined(separator: " ")) ended \(end); see \(log)")
        }
    }

    struct StackError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// One HTTP call with its own timeout (a hang is a failure, not a wait), reporting what came back or why nothing did.
enum Probe {
    enum Answer: Sendable, Equatable {
        case status(Int, String)
        /// No HTTP answer at all (connection refused or reset, timeout): never acceptable through the gateway.
        case none(String)

        var code: Int? { if case .status(let code, _) = self { code } else { nil } }
        /// An answer whose body was cut off: the replica died while it was sending it (its headers had already
        /// reached the client through the gateway), so it was a request inside the killed process.
        var wasCutOff: Bool {
            if case .none(let error) = self { error.contains("transfer closed with") } else { false }
        }
    }

    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSession(configuration: configuration)
    }()

    static func call(
        _ method: String, _ url: URL, headers: [String: String] = [:], json: String? = nil, timeout: TimeInterval
    ) async -> Answer {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(json.utf8)
        }
        do {
            let (data, response) = try await session.data(for: request)
            return .status((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
        } catch {
            return .none("\(error)")
        }
    }
}
