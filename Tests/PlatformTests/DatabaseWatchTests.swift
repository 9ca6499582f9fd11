import Foundation
import SNSTestSupport
import Testing

@testable import SNSPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The database watch turns requests away (503) only for a database that is really gone: refused connections
/// mark it down after two probes; a database that accepts connections and never answers (frozen, or just very
/// busy) never does; a healthy one never does either.
@Suite("Database watch")
struct DatabaseWatchTests {
    func watching(_ url: String, _ body: @Sendable (DatabaseWatch) async throws -> Void) async throws {
        let watch = DatabaseWatch(
            database: try DatabaseConfiguration(url: url), interval: .milliseconds(50), logger: TestEnvironment.logger)
        try await withBackgroundWork([{ try? await watch.run() }], name: "database watch") { try await body(watch) }
    }

    /// A loopback port where nothing listens (bound, then closed).
    static func refusingPort() -> Int {
        let listener = try! ReadinessTests.BlackHole()
        return listener.port  // closed when `listener` goes away here
    }

    @Test func refusedConnectionsMarkTheDatabaseDown() async throws {
        let port = Self.refusingPort()
        try await watching("postgres://sns:sns@127.0.0.1:\(port)/sns") { watch in
            try await eventually("the watch reports the database down") { watch.isDown }
        }
    }

    @Test func aDatabaseThatNeverAnswersIsSlowNotDown() async throws {
        let hole = try ReadinessTests.BlackHole()
        try await watching("postgres://sns:sns@127.0.0.1:\(hole.port)/sns") { watch in
            try await eventually("five probes timed out") { watch.probes >= 5 }
            #expect(!watch.isDown)
        }
        withExtendedLifetime(hole) {}
    }

    @Test func aHealthyDatabaseIsNeverDown() async throws {
        try await watching(try TestEnvironment.databaseURL()) { watch in
            try await eventually("five probes") { watch.probes >= 5 }
            #expect(!watch.isDown)
        }
    }
}
