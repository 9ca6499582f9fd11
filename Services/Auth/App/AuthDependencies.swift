import Logging
import PostgresNIO
import SNSPlatform

/// What the auth handlers share.
struct AuthDependencies: Sendable {
    let configuration: AuthConfiguration
    let store: AccountStore
    let rules: AccountRules
    let hasher: PasswordHasher
    let signer: AccessTokenSigner
    let verifier: AccessTokenVerifier
    let outbox: Outbox
    let postgres: PostgresClient
    /// Computed once at start-up; compared against when the email is unknown (constant-time-ish login).
    let dummyPasswordHash: String
}
