import Foundation
import PostgresNIO
import SNSKafka
import SNSPlatform
import SNSTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The outbox across a real process crash: an auth process whose broker is unreachable (so it cannot publish
/// anything itself) is killed with `kill -9` in the middle of a burst of sign-ups; then it is started again with
/// the broker. Every sign-up that got 200 has exactly one outbox row and its `user-registered` event reaches the
/// broker, published by a live replica (the restarted process, or the stack's own auth process, which relays
/// the same schema — the single-active-relay lock decides which).
@Suite("Crash recovery of the real auth process")
struct CrashRecoveryTests {
    @Test func everyAcknowledgedJoinIsPublishedAfterAKill9AndRestart() async throws {
        let processes = ServiceProcessTests()
        // Below the kernel's ephemeral range (`ListeningPorts`): a random port in 30 000–40 000 once collided, and
        // neither start of the auth process could bind it.
        let port = try ListeningPorts.reserve()
        // The processes' logs go to a file, shown when an expectation fails: a pipe nobody reads would block them
        // once full (an auth process without a broker logs librdkafka's connection errors).
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("crash-recovery-\(port).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let logged = { Self.tail(of: log) }
        let environment = try processes.validEnvironment(port: port)
        var brokerDown = environment
        brokerDown["SNS_KAFKA_BROKERS"] = "127.0.0.1:1"
        // Without a broker no projection can apply a join, so its read-your-writes wait could only time out; this
        // test is about the outbox, so joins answer at once.
        brokerDown["SNS_READ_YOUR_WRITES_TIMEOUT_MS"] = "0"
        // Its relay, sending to nowhere, holds the auth schema's relay turn for a send's whole timeout: keep that
        // short so the stack's auth relay keeps publishing everyone else's sign-ups meanwhile.
        brokerDown["SNS_KAFKA_PROPERTIES"] = "message.timeout.ms=1000"
        let first = try ChildProcess.spawn(
            try processes.binary("auth").path, environment: brokerDown, standardOutput: .file(log),
            standardError: .file(log))
        defer { first.signal(SIGKILL) }
        #expect(try await waitUntil(port: port, path: "/health"), logged())  // alive, though not ready: no broker

        let run = TestEnvironment.unique("crash")
        let apiKey = try TestEnvironment.apiKey()
        let succeeded = LockedList()
        // A burst of joins; the process is killed while they are in flight.
        let pid = first.processIdentifier
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<60 {
                group.addTask {
                    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/users/join")!)
                    request.httpMethod = "POST"
                    request.setValue(apiKey, forHTTPHeaderField: "SesacKey")
                    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                    request.httpBody = Data(
                        #"{"email":"\#(run)-\#(index)@example.com","password":"password123","nick":"\#(run)\#(index)"}"#
                            .utf8)
                    if let (data, response) = try? await URLSession.shared.data(for: request),
                        (response as? HTTPURLResponse)?.statusCode == 200,
                        let userId = try? JSONObject(Array(data)).string("user_id")
                    {
                        succeeded.append(userId)
                    }
                }
            }
            group.addTask {
                // Kill once some joins have been acknowledged (bounded wait; the kill happens regardless).
                for _ in 0..<200 where succeeded.count < 10 { try? await Task.sleep(for: .milliseconds(10)) }
                kill(pid, SIGKILL)
            }
        }
        #expect(await first.exit() == .signalled(SIGKILL), logged())
        let acknowledged = Set(succeeded.values)
        #expect(!acknowledged.isEmpty, logged())

        // Restart; the new process's relay publishes whatever the dead one left pending.
        let second = try ChildProcess.spawn(
            try processes.binary("auth").path, environment: environment, standardOutput: .file(log),
            standardError: .file(log))
        defer { second.signal(SIGTERM); second.waitUntilExit() }
        #expect(try await waitUntil(port: port, path: "/ready"), logged())

        let keys = Set(acknowledged.map { Array($0.utf8) })
        let messages = try await TestPlatform.collect(topic: Topic.users) { seen in
            Set(seen.compactMap { $0.key }.filter { keys.contains($0) }).count == keys.count
        }
        let published = Set(
            messages.compactMap { $0.key.map { String(decoding: $0, as: UTF8.self) } }.filter(acknowledged.contains))
        #expect(published == acknowledged, "every acknowledged join reached the broker")
        // Nothing acknowledged is lost in the database either: each has exactly one outbox row.
        let rows = try await TestEnvironment.withDatabase { db in
            var counts: [String: Int] = [:]
            let result = try await db.query(
                "SELECT partition_key FROM auth.outbox WHERE event_type = 'user-registered' AND partition_key = ANY(\(Array(acknowledged)))",
                logger: TestEnvironment.logger)
            for try await key in result.decode(String.self) { counts[key, default: 0] += 1 }
            return counts
        }
        #expect(Set(rows.keys) == acknowledged)
        #expect(rows.values.allSatisfy { $0 == 1 })
    }

    /// The end of the processes' log, for a failed expectation.
    static func tail(of log: String) -> Comment {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Comment(rawValue: "the auth processes' log (end):\n" + String(text.suffix(4_000)))
    }

    func waitUntil(port: Int, path: String) async throws -> Bool {
        for _ in 0..<300 {  // hang guard: 30 s
            if let (_, response) = try? await URLSession.shared.data(
                from: URL(string: "http://127.0.0.1:\(port)\(path)")!),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return true
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}

final class LockedList: Sendable {
    private let items = Mutex<[String]>([])
    func append(_ item: String) { items.withLock { $0.append(item) } }
    var count: Int { items.withLock { $0.count } }
    var values: [String] { items.withLock { $0 } }
}
