import Foundation
import Logging
import PostgresNIO
import SNSKafka
import SNSPlatform
import SNSTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A private copy of the event pipeline for the fault-tolerance tests, made of real processes: its own
/// database on the test PostgreSQL cluster (the services' schemas are fixed, so a private database is what
/// keeps them apart from the shared stack), its own dev broker process, and the chosen service executables
/// on loopback ports outside the ephemeral range (`ListeningPorts`). Tests kill, stop and restart these
/// processes; nothing else in the suite sees them. Each process's output is appended to
/// `<SNS_TEST_STATE_DIR>/fault/<database>/<name>.log`; a failing test's error carries the tail of every log.
actor MiniStack {
    let databaseName: String
    let databaseURL: String
    let directory: URL
    let postgres: PostgresClient
    let apiKey: String
    private(set) var brokerAddress: String
    private var broker: ChildProcess
    private var brokerGeneration = 0
    private var processes: [String: ChildProcess] = [:]
    private var ports: [String: Int] = [:]
    /// One admin client for the current broker (the tests poll it every few milliseconds).
    private var admin: KafkaAdmin?
    private let signer: AccessTokenSigner

    private init(
        databaseName: String, databaseURL: String, directory: URL, postgres: PostgresClient, apiKey: String,
        broker: ChildProcess, brokerAddress: String, signer: AccessTokenSigner
    ) {
        self.databaseName = databaseName
        self.databaseURL = databaseURL
        self.directory = directory
        self.postgres = postgres
        self.apiKey = apiKey
        self.broker = broker
        self.brokerAddress = brokerAddress
        self.signer = signer
    }

    /// Creates the database and broker, starts `services` (in order) and waits until each is ready, runs
    /// `body`, then kills everything and drops the database — also when `body` throws.
    static func with<T: Sendable>(_ services: [String], _ body: @Sendable (MiniStack) async throws -> T) async throws
        -> T
    {
        let name = TestEnvironment.unique("ft_")
        _ = try await TestEnvironment.withDatabase { db in
            // The name is ours (letters and digits), not input; CREATE DATABASE takes no bind parameters.
            try await db.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: TestEnvironment.logger)
        }
        guard var components = URLComponents(string: try TestEnvironment.databaseURL()) else {
            throw TestEnvironment.Missing(variable: "SNS_TEST_DATABASE_URL")
        }
        components.path = "/\(name)"
        let url = components.string ?? ""
        let root = ProcessInfo.processInfo.environment["SNS_TEST_STATE_DIR"] ?? NSTemporaryDirectory()
        let directory = URL(fileURLWithPath: root).appendingPathComponent("fault").appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let postgres = PostgresClient(
            configuration: try DatabaseConfiguration(url: url, maxConnections: 4).clientConfiguration,
            backgroundLogger: TestEnvironment.logger)
        let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())

        return try await withBackgroundWork([{ await postgres.run() }], name: "MiniStack") {
            var started: MiniStack?
            do {
                let (broker, address) = try await startBroker(in: directory, generation: 0)
                let stack = MiniStack(
                    databaseName: name, databaseURL: url, directory: directory, postgres: postgres,
                    apiKey: try TestEnvironment.apiKey(), broker: broker, brokerAddress: address, signer: signer)
                started = stack
                for service in services { try await stack.start(service) }
                for service in services { try await stack.waitReady(service) }
                let result = try await body(stack)
                await stack.killEverything()
                await dropDatabase(name)
                return result
            } catch {
                let logs = await started?.logTails() ?? ""
                await started?.killEverything()
                await dropDatabase(name)
                throw Failure(underlying: error, logs: logs)
            }
        }
    }

    struct MiniStackError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    struct Failure: Error, CustomStringConvertible {
        let underlying: any Error
        let logs: String
        var description: String { "\(String(reflecting: underlying))\n--- mini-stack logs (tails) ---\n\(logs)" }
    }

    private static func dropDatabase(_ name: String) async {
        _ = try? await TestEnvironment.withDatabase { db in
            try await db.query(
                PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: TestEnvironment.logger
            )
        }
    }

    // MARK: Processes

    private static func binary(_ name: String) throws -> URL {
        URL(fileURLWithPath: try TestEnvironment.binaryDirectory()).appendingPathComponent(name)
    }

    private static func logPath(_ directory: URL, _ name: String) -> String {
        directory.appendingPathComponent("\(name).log").path
    }

    /// A new in-memory dev broker (empty: every topic, record and committed offset of an earlier one is gone).
    private static func startBroker(in directory: URL, generation: Int) async throws -> (ChildProcess, String) {
        let addressFile = directory.appendingPathComponent("broker-\(generation).addr").path
        let log = logPath(directory, "broker")
        let process = try ChildProcess.spawn(
            try binary("sns-dev-broker").path, arguments: ["--address-file", addressFile],
            environment: ["PATH": "/usr/bin:/bin"], standardOutput: .file(log), standardError: .file(log))
        try await eventually("dev broker address", guard: 30) {
            guard process.isRunning else { throw MiniStackError("the dev broker exited at start") }
            return FileManager.default.fileExists(atPath: addressFile)
        }
        return (process, try String(contentsOfFile: addressFile, encoding: .utf8))
    }

    /// For every process of the stack, `sns-admin` included. Session timeouts stay at the wrapper's default
    /// (10 s) on purpose: every member of a group must use the same one on the dev broker (see
    /// Tools/DevBroker/main.swift: a shorter one than the group's pending rebalance delay hangs the join).
    static let kafkaProperties = "topic.metadata.refresh.interval.ms=1000"

    /// The G2 app (`ProductId`) the mini-stack's services accept.
    static let g2App = "mp_g2"

    private func environment(for service: String, port: Int) throws -> [String: String] {
        let env = ProcessInfo.processInfo.environment
        var values = [
            "PATH": env["PATH"] ?? "/usr/bin:/bin",
            "SNS_HTTP_HOST": "127.0.0.1",
            "SNS_HTTP_PORT": String(port),
            "SNS_DATABASE_URL": databaseURL,
            "SNS_DATABASE_MAX_CONNECTIONS": "4",
            "SNS_KAFKA_BROKERS": brokerAddress,
            "SNS_KAFKA_PROPERTIES": Self.kafkaProperties,
            "SNS_API_KEY": apiKey,
            "SNS_PRODUCT_IDS": Self.g2App,
            "SNS_JWT_PUBLIC_KEY_FILE": env["SNS_TEST_JWT_PUBLIC_KEY_FILE"] ?? "",
            "SNS_LOG_LEVEL": "info",
            "SNS_OUTBOX_POLL_MS": "200",
            "SNS_CONSUMER_RETRY_BASE_MS": "50",
            // These tests stop consumers and the broker on purpose and are about durability, not read-your-writes
            // (decision 0013): writes answer without waiting for projections.
            "SNS_READ_YOUR_WRITES_TIMEOUT_MS": "0",
        ]
        switch service {
        case "auth":
            values["SNS_JWT_PRIVATE_KEY_FILE"] = env["SNS_TEST_JWT_PRIVATE_KEY_FILE"] ?? ""
            values["SNS_MEDIA_SIGNING_KEY_FILE"] = env["SNS_TEST_MEDIA_SIGNING_KEY_FILE"] ?? ""
            values["SNS_BCRYPT_COST"] = "4"
        case "posts":
            values["SNS_MEDIA_SIGNING_KEY_FILE"] = env["SNS_TEST_MEDIA_SIGNING_KEY_FILE"] ?? ""
            // Only G0 post writes with images call media; these tests make none.
            values["SNS_MEDIA_URL"] = "http://127.0.0.1:1"
        case "social":
            // Only profile writes call auth and media; these tests make none.
            values["SNS_AUTH_URL"] = "http://127.0.0.1:1"
            values["SNS_MEDIA_URL"] = "http://127.0.0.1:1"
        case "market":
            // Only payment validation calls PortOne; these tests make none.
            values["SNS_PORTONE_URL"] = "http://127.0.0.1:1"
            values["SNS_PORTONE_IMP_KEY"] = "fault_test_key"
            values["SNS_PORTONE_IMP_SECRET"] = "fault-test-secret"
        default:
            throw MiniStackError("the mini-stack cannot run \(service)")
        }
        return values
    }

    /// Starts `service` (again, on the same port if it ran before) against the current broker.
    func start(_ service: String) throws {
        let port = try ports[service] ?? ListeningPorts.reserve()
        ports[service] = port
        let log = Self.logPath(directory, service)
        let process = try ChildProcess.spawn(
            try Self.binary(service).path, environment: try environment(for: service, port: port),
            standardOutput: .file(log), standardError: .file(log))
        processes[service] = process
    }

    func waitReady(_ service: String) async throws {
        guard let process = processes[service] else { throw MiniStackError("\(service) was never started") }
        let url = try self.url(service, "/ready")
        try await eventually("\(service) ready", guard: 120) {
            guard process.isRunning else { throw MiniStackError("\(service) exited during start-up") }
            return await Self.status(of: url) == 200
        }
    }

    func restart(_ service: String) async throws {
        try start(service)
        try await waitReady(service)
    }

    /// `kill -9`; returns once the process is gone.
    func kill9(_ service: String) {
        guard let process = processes[service] else { return }
        process.signal(SIGKILL)
        process.waitUntilExit()
    }

    func processIdentifier(_ service: String) -> Int32? { processes[service]?.processIdentifier }

    /// Waits for the process to end (it was just sent SIGKILL), then says whether SIGKILL ended it.
    func terminationWasSIGKILL(_ service: String) -> Bool {
        guard let process = processes[service] else { return false }
        return process.waitUntilExit() == .signalled(SIGKILL)
    }

    /// SIGTERM, as an operator stopping a service; SIGKILL if it has not stopped within 20 s.
    func stop(_ service: String) async {
        guard let process = processes[service], process.isRunning else { return }
        process.signal(SIGTERM)
        for _ in 0..<200 where process.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        process.signal(SIGKILL)
        await process.exit()
    }

    /// Runs `sns-admin` against this stack.
    func runAdmin(_ arguments: [String]) async throws -> AdminRun {
        try await AdminProcess.run(
            arguments, databaseURL: databaseURL, brokers: brokerAddress, kafkaProperties: Self.kafkaProperties)
    }

    // MARK: The broker

    /// Starts (`true`) or ends a broker outage: the dev broker drops every connection and refuses new ones
    /// (SIGUSR1), or accepts them again (SIGUSR2), keeping its data. Returns once the listener shows it.
    func brokerOutage(_ down: Bool) async throws {
        broker.signal(down ? SIGUSR1 : SIGUSR2)
        let address = brokerAddress
        try await eventually(down ? "broker refusing connections" : "broker accepting connections", guard: 30) {
            Self.acceptsConnections(address) != down
        }
    }

    /// `kill -9` the dev broker and start a new, empty one (at a new address: the mock cluster cannot choose
    /// its ports). Services keep the old address until they are restarted.
    func replaceBroker() async throws {
        await admin?.close()
        admin = nil
        broker.signal(SIGKILL)
        broker.waitUntilExit()
        brokerGeneration += 1
        (broker, brokerAddress) = try await Self.startBroker(in: directory, generation: brokerGeneration)
    }

    /// The admin client of the current broker.
    func brokerAdmin() throws -> KafkaAdmin {
        if let admin { return admin }
        let created = try KafkaAdmin(
            configuration: KafkaConfiguration(
                bootstrapServers: brokerAddress, clientId: "fault-tests", properties: [:]),
            logger: TestEnvironment.logger)
        admin = created
        return created
    }

    private func killEverything() async {
        await admin?.close()
        admin = nil
        for process in Array(processes.values) + [broker] {
            process.signal(SIGKILL)
            process.waitUntilExit()
        }
    }

    private func logTails() -> String {
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.filter { $0.hasSuffix(".log") }
            .sorted() ?? []
        return names.map { name in
            let text = (try? String(contentsOfFile: directory.appendingPathComponent(name).path, encoding: .utf8)) ?? ""
            return "== \(name)\n"
                + text.split(separator: "\n", omittingEmptySubsequences: false).suffix(25).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    // MARK: HTTP

    func url(_ service: String, _ path: String) throws -> URL {
        guard let port = ports[service], let url = URL(string: "http://127.0.0.1:\(port)\(path)") else {
            throw MiniStackError("no port known for \(service)")
        }
        return url
    }

    func client(_ service: String) throws -> GatewayClient {
        GatewayClient(baseURL: try url(service, ""), apiKey: apiKey)
    }

    func token(for userId: String) async throws -> String {
        let now = Date()
        return try await signer.sign(
            AccessTokenClaims(
                userId: userId, sessionId: nil, issuedAt: now.addingTimeInterval(-1),
                expiresAt: now.addingTimeInterval(3600)))
    }

    /// `GET` status, or nil when nothing answered.
    static func status(of url: URL) async -> Int? {
        var request = URLRequest(url: url)
        request.timeoutInterval = 5
        guard let (_, response) = try? await URLSession.shared.data(for: request) else { return nil }
        return (response as? HTTPURLResponse)?.statusCode
    }

    /// The value of a Prometheus counter line such as `sns_consumer_duplicates_total{consumer="social-projections"}`.
    func metric(_ service: String, _ line: String) async throws -> Double {
        let (data, _) = try await URLSession.shared.data(from: try url(service, "/metrics"))
        let text = String(decoding: data, as: UTF8.self)
        for row in text.split(separator: "\n") where row.hasPrefix(line + " ") {
            return Double(row.dropFirst(line.count + 1)) ?? 0
        }
        return 0
    }

    // MARK: Sockets

    /// Whether a TCP connection to the first `host:port` of a bootstrap list is accepted.
    static func acceptsConnections(_ bootstraps: String) -> Bool {
        let first = bootstraps.split(separator: ",").first.map(String.init) ?? bootstraps
        guard let colon = first.lastIndex(of: ":"), let port = UInt16(first[first.index(after: colon)...]) else {
            return false
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(String(first[..<colon]))
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
