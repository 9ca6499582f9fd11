import Foundation
import PostgresNIO
import SNSKafka
import SNSTestSupport
import Testing

@testable import SNSPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// `/ready` answers, whatever the database does: a database that accepts connections and never speaks (a frozen
/// server, a half-open network path) makes it "not ready" within its limit instead of hanging the probe.
@Suite("Readiness")
struct ReadinessTests {
    /// A TCP port that completes handshakes (the kernel's backlog) but never answers a byte.
    final class BlackHole: Sendable {
        let descriptor: Int32
        let port: Int

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0, listen(descriptor, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            self.descriptor = descriptor
            self.port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(descriptor) }
    }

    /// `limit`: the probes' bound. The healthy case gives them room, so a machine saturated by the suite (a fresh
    /// pool's first connection can take seconds then) does not make it fail.
    func check(
        databaseURL: String, within limit: Duration = .milliseconds(1500), watch: DatabaseWatch? = nil
    ) async throws -> ReadinessCheck.Report {
        let database = try DatabaseConfiguration(url: databaseURL, maxConnections: 2).clientConfiguration
        let postgres = DatabasePool(PostgresClient(configuration: database, backgroundLogger: TestEnvironment.logger))
        let producer = try KafkaProducer(
            configuration: KafkaConfiguration(
                bootstrapServers: try TestEnvironment.kafkaBrokers(), clientId: "readiness-test", properties: [:]),
            logger: TestEnvironment.logger)
        let gate = StartGate()
        gate.open()
        let readiness = ReadinessCheck(
            startGate: gate, postgres: postgres, producer: producer, databaseWatch: watch,
            logger: TestEnvironment.logger)
        return try await withBackgroundWork([{ await postgres.run() }], name: "readiness") {
            // A hang guard, far above the limit: without the probes' own deadline the check would wait on the
            // pool for as long as the database stays silent, and this makes that a failure instead of a hang.
            try await withDeadline(limit + .seconds(30), logger: TestEnvironment.logger, quiet: true) {
                await readiness.check(within: limit)
            }
        }
    }

    @Test func aDatabaseThatNeverAnswersMakesItNotReadyInsteadOfHanging() async throws {
        let hole = try BlackHole()
        let report = try await check(databaseURL: "postgres://sns:sns@127.0.0.1:\(hole.port)/sns")
        // (The broker's probe is not asserted here: under the suite's load a fresh producer may need longer than
        // the limit; the healthy case below checks it with room.)
        #expect(!report.ready && !report.database && report.started)
    }

    @Test func aReachableDatabaseAndBrokerAreReady() async throws {
        let report = try await check(databaseURL: try TestEnvironment.databaseURL(), within: .seconds(60))
        #expect(report.ready && report.database && report.broker)
    }

    /// While the database watch says down, requests get 503: `/ready` says not ready too, even if a probe of the pool
    /// would answer (the pool may answer before the watch has replaced its stuck pools, decision 0031).
    @Test func whileTheWatchSaysDownTheServiceIsNotReady() async throws {
        let url = try TestEnvironment.databaseURL()
        let watch = DatabaseWatch(
            database: try DatabaseConfiguration(url: url), interval: .seconds(1), logger: TestEnvironment.logger)
        watch.record(.failedOutright)
        watch.record(.failedOutright)
        let down = try await check(databaseURL: url, within: .seconds(60), watch: watch)
        #expect(!down.ready && !down.database)
        watch.record(.succeeded)
        let up = try await check(databaseURL: url, within: .seconds(60), watch: watch)
        #expect(up.database)
    }
}
