import Logging
import PostgresNIO
import SNSPlatform

/// What the auth handlers share.
struct AuthDependencies: Sendable {
    let configuration: AuthConfiguration
    let store: AccountStore
    /// Federated sign-in: (provider, subject) → account links, and the configured providers.
    let identities: IdentityStore
    let identityProviders: IdentityProviders
    let profiles: ProfileStore
    let rules: AccountRules
    let hasher: PasswordHasher
    let signer: AccessTokenSigner
    let verifier: AccessTokenVerifier
    /// Checks that a profile image is a path the media service issued to the user (`SNS_MEDIA_SIGNING_KEY`).
    let mediaPaths: MediaPathSigner
    let outbox: Outbox
    let postgres: DatabasePool
    /// Computed once at start-up; compared against when the email is unknown (constant-time-ish login).
    let dummyPasswordHash: String
}
