import Foundation
import PostgresNIO
import SNSTestSupport
import Testing

@testable import SNSPlatform

@Suite("Transactions")
struct TransactionTests {
    struct Rejected: Error, Equatable {}

    @Test func theClosuresErrorComesOutUnwrappedAndRollsBack() async throws {
        try await TestEnvironment.withDatabase { db in
            let table = "tx_\(TestEnvironment.unique())"
            try await db.query("CREATE TABLE \(unescaped: table) (n int)", logger: TestEnvironment.logger)
            await #expect(throws: Rejected.self) {
                try await db.transaction(logger: TestEnvironment.logger) { connection in
                    try await connection.query(
                        "INSERT INTO \(unescaped: table) VALUES (1)", logger: TestEnvironment.logger)
                    throw Rejected()
                }
            }
            let rows = try await db.query(
                "SELECT count(*)::int FROM \(unescaped: table)", logger: TestEnvironment.logger)
            for try await count in rows.decode(Int.self) { #expect(count == 0) }
        }
    }

    /// The server ends the connection mid-transaction, as a database restart would. Whatever PostgresNIO does
    /// with the next query, the transaction must end (with an error) rather than hang; the pool recovers.
    @Test func aConnectionKilledMidTransactionNeverHangs() async throws {
        try await TestEnvironment.withDatabase(ownEventLoop: true) { db in
            for _ in 0..<3 {
                await #expect(throws: (any Error).self) {
                    try await db.transaction(logger: TestEnvironment.logger, timeout: .seconds(2)) { connection in
                        try await connection.query(
                            "SELECT pg_terminate_backend(pg_backend_pid())", logger: TestEnvironment.logger)
                        try await connection.query("SELECT 1", logger: TestEnvironment.logger)
                    }
                }
            }
            var ok = false
            for _ in 0..<20 where !ok {
                ok =
                    (try? await db.transaction(logger: TestEnvironment.logger) { connection in
                        try await connection.query("SELECT 1", logger: TestEnvironment.logger)
                    }) != nil
            }
            #expect(ok, "the pool hands out working connections again")
        }
    }
}
