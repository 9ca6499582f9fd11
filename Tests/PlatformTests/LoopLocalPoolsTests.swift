import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import SNSTestSupport
import Testing

@testable import SNSPlatform

/// Requests' statements use the pool of their own event loop (decision 0025); everything else the shared pool.
@Suite("Pools per event loop")
struct LoopLocalPoolsTests {
    static func configuration(maxConnections: Int) throws -> PostgresClient.Configuration {
        try DatabaseConfiguration(url: try TestEnvironment.databaseURL(), maxConnections: maxConnections)
            .clientConfiguration
    }

    @Test func eachLoopGetsAPoolOfItsOwnAndTheRestTheShared() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        defer { group.shutdownGracefully { _ in } }
        let configuration = try Self.configuration(maxConnections: 10)
        let shared = DatabasePool(
            PostgresClient(configuration: configuration, backgroundLogger: TestEnvironment.logger))
        let pools = LoopLocalPools(
            shared: shared, configuration: configuration, loops: group, logger: TestEnvironment.logger)
        #expect(pools.perLoopPools.count == 3)
        #expect(pools.current === shared.client, "a task off those loops uses the shared pool")
        var seen: [ObjectIdentifier] = []
        for loop in group.makeIterator() {
            let chosen = try await loop.submit { ObjectIdentifier(pools.current) }.get()
            #expect(chosen != ObjectIdentifier(shared.client))
            #expect(try await loop.submit { ObjectIdentifier(pools.current) }.get() == chosen, "the same every time")
            seen.append(chosen)
        }
        #expect(Set(seen).count == 3, "one pool per loop")
        #expect(Set(seen) == Set(pools.perLoopPools.map { ObjectIdentifier($0.client) }))
    }

    @Test func withoutLoopsOrInTheTestsProcessOnlyTheSharedPool() throws {
        let configuration = try Self.configuration(maxConnections: 10)
        let shared = DatabasePool(
            PostgresClient(configuration: configuration, backgroundLogger: TestEnvironment.logger))
        let none = LoopLocalPools(
            shared: shared, configuration: configuration, loops: nil, logger: TestEnvironment.logger)
        #expect(none.perLoopPools.isEmpty && none.current === shared.client)
        // This process runs its tasks on Swift's default pool (ConcurrencyExecutor not installed): per-loop pools
        // would never be chosen, so none are made.
        let asked = LoopLocalPools(
            shared: shared, configuration: configuration, perLoop: true, logger: TestEnvironment.logger)
        #expect(asked.perLoopPools.isEmpty && asked.current === shared.client)
    }

    @Test func thePoolSizeIsSharedBetweenTheLoopsAndEachPoolAnswers() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 4)
        defer { group.shutdownGracefully { _ in } }
        let shared = DatabasePool(
            PostgresClient(
                configuration: try Self.configuration(maxConnections: 10), backgroundLogger: TestEnvironment.logger))
        let pools = LoopLocalPools(
            shared: shared, configuration: try Self.configuration(maxConnections: 10), loops: group,
            logger: TestEnvironment.logger)
        #expect(pools.connectionsPerLoop == 2)
        let three = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        defer { three.shutdownGracefully { _ in } }
        #expect(
            LoopLocalPools(
                shared: shared, configuration: try Self.configuration(maxConnections: 5), loops: three,
                logger: TestEnvironment.logger
            ).connectionsPerLoop == 2, "never fewer than two")
        try await withBackgroundWork(pools.perLoopPools.map { client in { await client.run() } }, name: "pools") {
            for client in pools.perLoopPools {
                for _ in 0..<3 {
                    let rows = try await client.query("SELECT 2::int4", logger: TestEnvironment.logger)
                    for try await value in rows.decode(Int32.self) { #expect(value == 2) }
                }
            }
        }
    }
}
