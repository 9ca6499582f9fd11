import Foundation
import PostgresNIO
import SNSTestSupport
import Synchronization
import Testing

@testable import SNSPlatform

/// The process's one `LISTEN` connection: every subscriber's channel on one backend, each told when its `LISTEN` is
/// in place and when it is lost, and all of them back after the connection is killed.
@Suite("One LISTEN connection per process")
struct NotificationListenerTests {
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        func count(_ line: String) -> Int { lines.withLock { $0.filter { $0 == line }.count } }
    }

    func notify(_ channel: String, _ payload: String) async throws {
        try await TestEnvironment.withDatabase { db in
            try await db.query("SELECT pg_notify(\(channel), \(payload))", logger: TestEnvironment.logger)
        }
    }

    /// The backends listening on either channel (pg_stat_activity shows each backend's last statement).
    func listeningBackends(_ channels: [String]) async throws -> [Int32] {
        try await TestEnvironment.withDatabase { db in
            let rows = try await db.query(
                """
                SELECT pid FROM pg_stat_activity
                WHERE query ILIKE 'LISTEN%' AND (query LIKE \("%" + channels[0] + "%") OR query LIKE \("%" + channels[1] + "%"))
                """, logger: TestEnvironment.logger)
            var pids: [Int32] = []
            for try await pid in rows.decode(Int32.self) { pids.append(pid) }
            return pids
        }
    }

    @Test func twoSubscribersShareOneBackendAndComeBackAfterItIsKilled() async throws {
        let run = TestEnvironment.unique("nl").lowercased().filter { $0.isLetter || $0.isNumber }
        let channels = ["sns_test_a_\(run)", "sns_test_b_\(run)"]
        let listener = try TestEnvironment.notificationListener()
        let log = Log()
        for channel in channels {
            listener.subscribe(
                channel: channel, listening: { log.add("\(channel) listening") }, lost: { log.add("\(channel) lost") },
                received: { log.add("\(channel) got \($0)") })
        }
        #expect(listener.channels == channels)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await listener.run() }
            try await eventually("both channels listen") {
                channels.allSatisfy { log.count("\($0) listening") == 1 }
            }
            let backends = try await listeningBackends(channels)
            #expect(backends.count == 1, "one backend for both channels: \(backends)")

            try await notify(channels[0], "one")
            try await notify(channels[1], "two")
            try await eventually("each subscriber hears its own channel") {
                log.count("\(channels[0]) got one") == 1 && log.count("\(channels[1]) got two") == 1
            }
            #expect(log.count("\(channels[0]) got two") == 0 && log.count("\(channels[1]) got one") == 0)

            // The connection dies: every subscriber is told, and both listen again on a new backend.
            let killed = try #require(backends.first)
            try await TestEnvironment.withDatabase { db in
                try await db.query("SELECT pg_terminate_backend(\(killed))", logger: TestEnvironment.logger)
            }
            try await eventually("both channels lost and listening again") {
                channels.allSatisfy { log.count("\($0) lost") == 1 && log.count("\($0) listening") == 2 }
            }
            let again = try await listeningBackends(channels)
            #expect(again.count == 1 && again != backends)
            try await notify(channels[1], "three")
            try await eventually("heard after the reconnection") { log.count("\(channels[1]) got three") == 1 }
            group.cancelAll()
        }
    }
}
