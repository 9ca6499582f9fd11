import SNSPlatform

/// The auth service's configuration: the shared platform settings plus
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `SNS_JWT_PRIVATE_KEY` / `_FILE` | ES256 private key (PEM, P-256) that signs access tokens | required |
/// | `SNS_MEDIA_SIGNING_KEY` / `_FILE` | the media service's path-signing key (≥ 32 characters): a profile edit accepts only a profile image the media service issued to the user | required |
/// | `SNS_ACCESS_TOKEN_TTL` | access-token lifetime, seconds (LSLP's five minutes, decision 0043) | 300 |
/// | `SNS_REFRESH_TOKEN_TTL` | refresh-token lifetime, seconds | 1209600 (14 days) |
/// | `SNS_BCRYPT_COST` | bcrypt work factor | 10 |
/// | `SNS_PASSWORD_MIN_LENGTH` | minimum password length, characters (EcoPloggers accepts 5; decision 0013) | 4 |
///
/// and the identity providers of federated sign-in (`FederationConfiguration`: Firebase, Apple, Kakao).
package struct AuthConfiguration: Sendable {
    package var platform: PlatformConfiguration
    package var jwtPrivateKeyPEM: String
    package var mediaSigningKey: String
    package var accessTokenTTL: Duration
    package var refreshTokenTTL: Duration
    package var bcryptCost: Int
    package var passwordMinLength: Int
    package var federation: FederationConfiguration
    /// The database schema: `auth` in deployments; tests may run the service on a private one.
    package var schema: String = SystemCatalog.auth.schema

    package static let serviceName = "auth"
    package static let defaultPort = 8101

    package init(
        platform: PlatformConfiguration, jwtPrivateKeyPEM: String, mediaSigningKey: String,
        accessTokenTTL: Duration = .seconds(300), refreshTokenTTL: Duration = .seconds(1_209_600), bcryptCost: Int = 10,
        passwordMinLength: Int = 8, federation: FederationConfiguration = FederationConfiguration()
    ) {
        self.platform = platform
        self.jwtPrivateKeyPEM = jwtPrivateKeyPEM
        self.mediaSigningKey = mediaSigningKey
        self.accessTokenTTL = accessTokenTTL
        self.refreshTokenTTL = refreshTokenTTL
        self.bcryptCost = bcryptCost
        self.passwordMinLength = passwordMinLength
        self.federation = federation
    }

    package init(environment env: Environment = Environment()) throws {
        self.platform = try PlatformConfiguration(
            serviceName: Self.serviceName, defaultPort: Self.defaultPort, environment: env)
        self.jwtPrivateKeyPEM = try env.secret("SNS_JWT_PRIVATE_KEY")
        self.mediaSigningKey = try env.secret("SNS_MEDIA_SIGNING_KEY")
        _ = try MediaPathSigner(secret: mediaSigningKey)  // ≥ 32 characters, or exit 78 naming the variable
        self.accessTokenTTL = .seconds(try env.int("SNS_ACCESS_TOKEN_TTL", default: 300, range: 1...86_400))
        self.refreshTokenTTL = .seconds(try env.int("SNS_REFRESH_TOKEN_TTL", default: 1_209_600, range: 1...31_536_000))
        self.bcryptCost = try env.int("SNS_BCRYPT_COST", default: 10, range: 4...16)
        self.passwordMinLength = try env.int("SNS_PASSWORD_MIN_LENGTH", default: 4, range: 1...64)
        self.federation = try FederationConfiguration(environment: env)
    }
}
