import Logging
import PostgresNIO
import SNSTestSupport
import Testing

@testable import SNSPlatform

/// The pools keep a few connections open for good and send no keep-alive queries, so that leasing and returning a
/// connection starts and cancels no timer (decision 0029).
@Suite("Pool sizing")
struct PoolSizingTests {
    @Test func warmConnectionsAreFewerThanTheMaximum() {
        var options = PostgresClient.Configuration.Options()
        for (maximum, warm, expected) in [(2, 4, 1), (5, 4, 4), (10, 4, 4), (10, 1, 1), (2, 1, 1)] {
            options.size(maximum: maximum, warm: warm)
            #expect(options.maximumConnections == maximum)
            #expect(options.minimumConnections == expected, "\(warm) warm of \(maximum)")
            #expect(options.keepAliveBehavior == nil)
        }
    }

    @Test func theSharedPoolKeepsNoneAndEachLoopsPoolFour() throws {
        let configuration = try DatabaseConfiguration(url: try TestEnvironment.databaseURL(), maxConnections: 10)
            .clientConfiguration
        #expect(configuration.options.maximumConnections == 10)
        #expect(configuration.options.minimumConnections == 0)
        #expect(configuration.options.keepAliveBehavior == nil)
        #expect(LoopLocalPools.warmConnections == 4)
    }

    /// The warm connections open without any demand, and stay idle: no statement ever ran on them (a keep-alive
    /// query would show as their last statement).
    @Test func aPoolOpensItsWarmConnectionsAndSendsThemNothing() async throws {
        let name = "sns-pool-sizing-\(UInt32.random(in: 0...UInt32.max))"
        var configuration = try DatabaseConfiguration(url: try TestEnvironment.databaseURL(), maxConnections: 6)
            .clientConfiguration
        configuration.options.size(maximum: 6, warm: LoopLocalPools.warmConnections)
        configuration.options.additionalStartupParameters = [("application_name", name)]
        let pool = PostgresClient(configuration: configuration, backgroundLogger: TestEnvironment.logger)
        try await TestEnvironment.withDatabase { observer in
            try await Self.expectWarmAndIdle(pool: pool, named: name, observer: observer)
        }
    }

    static func expectWarmAndIdle(pool: PostgresClient, named name: String, observer: PostgresClient) async throws {
        try await withBackgroundWork([{ await pool.run() }], name: "pool") {
            @Sendable func backends() async throws -> [(state: String?, query: String?)] {
                try await observer.query(
                    "SELECT state, query FROM pg_stat_activity WHERE application_name = \(name)",
                    logger: TestEnvironment.logger
                ).collect().map { try $0.decode((String?, String?).self) }
            }
            try await eventually("the pool opened its warm connections") { try await backends().count >= 4 }
            let backends = try await backends()
            #expect(backends.count == 4, "the warm connections, opened without a single lease")
            #expect(backends.allSatisfy { $0.state == "idle" && ($0.query ?? "").isEmpty })
        }
    }
}
