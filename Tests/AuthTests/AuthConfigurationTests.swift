import AuthService
import Foundation
import SNSPlatform
import Testing

@Suite("Auth configuration from the environment")
struct AuthConfigurationTests {
    let base: [String: String] = [
        "SNS_DATABASE_URL": "postgres://sns:secret@127.0.0.1:5432/sns",
        "SNS_KAFKA_BROKERS": "127.0.0.1:9092",
        "SNS_API_KEY": "key",
        "SNS_JWT_PUBLIC_KEY": "-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----",
        "SNS_JWT_PRIVATE_KEY": "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----",
        "SNS_MEDIA_SIGNING_KEY": "0123456789abcdef0123456789abcdef",
    ]

    /// Access tokens live LSLP's five minutes (decision 0043: DateDay refreshes 4 min 45 s after login, "just before
    /// the token expires"); refresh tokens fourteen days.
    @Test func tokenLifetimesDefaultToLSLPs() throws {
        let configuration = try AuthConfiguration(environment: Environment(base))
        #expect(configuration.accessTokenTTL == .seconds(300))
        #expect(configuration.refreshTokenTTL == .seconds(1_209_600))
        let longer = try AuthConfiguration(
            environment: Environment(base.merging(["SNS_ACCESS_TOKEN_TTL": "600"]) { $1 }))
        #expect(longer.accessTokenTTL == .seconds(600))
    }
}
