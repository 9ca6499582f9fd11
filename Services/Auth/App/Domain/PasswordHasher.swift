import HummingbirdBcrypt
import SNSPlatform

/// bcrypt hashing, run off the cooperative thread pool (each call costs tens of milliseconds at cost 10).
struct PasswordHasher: Sendable {
    let cost: Int

    func hash(_ password: String) async throws -> String {
        let cost = UInt8(cost)
        return try await runBlocking { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, hash: String) async throws -> Bool {
        try await runBlocking { Bcrypt.verify(password, hash: hash) }
    }

    /// A hash to compare against when the account does not exist, so a login for an unknown email costs
    /// the same time as one with a wrong password (no account enumeration by timing).
    func dummyHash() async throws -> String {
        try await hash("not-a-real-password-\(cost)")
    }
}
