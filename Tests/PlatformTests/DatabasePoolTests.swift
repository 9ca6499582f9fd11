import Foundation
import PostgresNIO
import SNSTestSupport
import Synchronization
import Testing

@testable import SNSPlatform

/// A pool stuck after an outage is replaced when the database watch sees the database back, and the tasks pausing
/// for the outage are woken then (decision 0031).
@Suite("Database pool renewal")
struct DatabasePoolTests {
    static func configuration(url: String) throws -> PostgresClient.Configuration {
        try DatabaseConfiguration(url: url, maxConnections: 2).clientConfiguration
    }

    /// A pool whose first `PostgresClient` talks to `first` and every later one to the test database.
    static func pool(firstTo first: String, grace: Duration = .zero) throws -> DatabasePool {
        let (stuck, healthy) = (
            try configuration(url: first), try configuration(url: try TestEnvironment.databaseURL())
        )
        let made = Atomic(0)
        return DatabasePool(name: "test", logger: TestEnvironment.logger, retirementGrace: grace) {
            let configuration = made.add(1, ordering: .relaxed).oldValue == 0 ? stuck : healthy
            return PostgresClient(configuration: configuration, backgroundLogger: TestEnvironment.logger)
        }
    }

    static func selectOne(_ pool: DatabasePool) async throws -> Int32? {
        let rows = try await pool.query("SELECT 1::int4", logger: TestEnvironment.logger)
        for try await value in rows.decode(Int32.self) { return value }
        return nil
    }

    /// Far above what a healthy pool needs to lend a connection, even on a machine the suite saturates (a fresh
    /// connection was seen to take seconds there), so a healthy pool is never taken for a stuck one here.
    static let roomForAHealthyPool: Duration = .seconds(60)

    @Test func aHealthyPoolIsKept() async throws {
        let pool = try Self.pool(firstTo: try TestEnvironment.databaseURL())
        try await withBackgroundWork([{ await pool.run() }], name: "pool") {
            #expect(await pool.renewIfStuck(within: Self.roomForAHealthyPool) == false)
            #expect(pool.renewals == 0)
            let answer = try await Self.selectOne(pool)
            #expect(answer == 1)
        }
    }

    @Test func aPoolThatCannotLendAConnectionIsReplacedAndTheOldOneClosed() async throws {
        let hole = try ReadinessTests.BlackHole()  // accepts connections, never answers
        let pool = try Self.pool(firstTo: "postgres://sns:sns@127.0.0.1:\(hole.port)/sns")
        try await withBackgroundWork([{ await pool.run() }], name: "pool") {
            let stuck = pool.client
            #expect(await pool.renewIfStuck() == true)
            #expect(pool.renewals == 1 && pool.client !== stuck)
            let answer = try await Self.selectOne(pool)
            #expect(answer == 1, "the replacement answers")
            // The old pool is closed after the grace (zero here): a lease on it fails instead of waiting forever.
            try await eventually("the replaced pool is closed") {
                do {
                    try await withDeadline(.seconds(5), logger: TestEnvironment.logger, quiet: true) {
                        try await stuck.withConnection { _ in }
                    }
                    return false
                } catch is TransactionTimeout {
                    return false
                } catch {
                    return true
                }
            }
            #expect(await pool.renewIfStuck(within: Self.roomForAHealthyPool) == false, "the replacement is kept")
        }
        withExtendedLifetime(hole) {}
    }

    @Test func aPoolThatIsNeverReplacedSaysSo() async throws {
        let hole = try ReadinessTests.BlackHole()
        let client = PostgresClient(
            configuration: try Self.configuration(url: "postgres://sns:sns@127.0.0.1:\(hole.port)/sns"),
            backgroundLogger: TestEnvironment.logger)
        let pool = DatabasePool(client)
        try await withBackgroundWork([{ await pool.run() }], name: "pool") {
            #expect(await pool.renewIfStuck(within: .milliseconds(200)) == false)
            #expect(pool.client === client)
        }
        withExtendedLifetime(hole) {}
    }

    @Test func anAnnouncementEndsEveryPauseUnderWay() async throws {
        let recovery = DatabaseRecovery()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { await recovery.pause(.seconds(3600)) } }
            try await eventually("three pauses under way") { recovery.pausing == 3 }
            recovery.announce()
            try await group.waitForAll()  // without the announcement: an hour (the suite's hang guard fails first)
        }
        #expect(recovery.announcements == 1 && recovery.pausing == 0)
    }

    @Test func aCancelledPauseEnds() async throws {
        let recovery = DatabaseRecovery()
        let pause = Task { await recovery.pause(.seconds(3600)) }
        try await eventually("the pause is under way") { recovery.pausing == 1 }
        pause.cancel()
        await pause.value
        #expect(recovery.pausing == 0)
    }

    @Test func theWatchReplacesStuckPoolsBeforeItLetsRequestsThroughAndThenWakesThePauses() async throws {
        let hole = try ReadinessTests.BlackHole()
        let pool = try Self.pool(firstTo: "postgres://sns:sns@127.0.0.1:\(hole.port)/sns")
        let recovery = DatabaseRecovery()
        let watch = DatabaseWatch(
            database: try DatabaseConfiguration(url: try TestEnvironment.databaseURL()), interval: .seconds(3600),
            logger: TestEnvironment.logger, pools: [pool], recovery: recovery)
        try await withBackgroundWork(
            [{ await pool.run() }, { try? await watch.run() }], name: "pools"
        ) {
            // The watch probes once, then sleeps an hour: the test drives its probes from here.
            try await eventually("the watch's first probe") { watch.probes == 1 }
            // Two refused probes: down.
            watch.record(.failedOutright)
            watch.record(.failedOutright)
            #expect(watch.isDown)
            let pausing = Task { await recovery.pause(.seconds(3600)) }
            try await eventually("a consumer pauses for the outage") { recovery.pausing == 1 }

            await watch.probe()  // the database answers

            #expect(!watch.isDown)
            #expect(pool.renewals == 1, "the stuck pool was replaced before requests were let through")
            let answer = try await Self.selectOne(pool)
            #expect(answer == 1)
            await pausing.value
            #expect(recovery.announcements == 1)
            await watch.probe()
            #expect(recovery.announcements == 1, "announced once per recovery")
        }
        withExtendedLifetime(hole) {}
    }
}
