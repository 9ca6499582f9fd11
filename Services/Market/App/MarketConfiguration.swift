import Foundation
import SNSPlatform

/// The market & payment verification service's configuration: the shared platform settings plus
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `SNS_PORTONE_URL` | PortOne REST API v1 base URL (the local stack points it at its PortOne test server) | `https://api.iamport.kr` |
/// | `SNS_PORTONE_IMP_KEY` | REST API key | required |
/// | `SNS_PORTONE_IMP_SECRET` / `_FILE` | REST API secret | required |
/// | `SNS_PORTONE_TIMEOUT_MS` | deadline of each PortOne call | 5000 |
/// | `SNS_PORTONE_ATTEMPTS` | attempts per PortOne call (transport failures, timeouts, 5xx, 429) | 3 |
/// | `SNS_PAYMENT_REVERIFY_INTERVAL_MS` | how often pending claims and refunds are retried (and the backoff base) | 10000 |
/// | `SNS_PAYMENT_CLAIM_MAX_AGE` | seconds after which an unsettled claim is given up (logged) | 86400 |
package struct MarketConfiguration: Sendable {
    package var platform: PlatformConfiguration
    package var portOneURL: String
    package var impKey: String
    package var impSecret: String
    package var portOneTimeout: Duration = .seconds(5)
    package var portOneAttempts: Int = 3
    package var portOneRetryBase: Duration = .milliseconds(200)
    package var reverifyInterval: Duration = .seconds(10)
    package var claimMaxAge: TimeInterval = 86_400
    /// The database schema (tests use private ones; the consumer group follows it).
    package var schema: String = "market"
    /// Whether the product read-model consumer runs (always in deployments; in-process tests fill the read model themselves).
    package var consumesEvents: Bool = true
    /// Whether the background re-verifier runs (tests call it directly).
    package var runsReverifier: Bool = true

    package static let serviceName = "market"
    package static let defaultPort = 8105

    package init(platform: PlatformConfiguration, portOneURL: String, impKey: String, impSecret: String) {
        self.platform = platform
        self.portOneURL = portOneURL
        self.impKey = impKey
        self.impSecret = impSecret
    }

    package init(environment env: Environment = Environment()) throws {
        self.platform = try PlatformConfiguration(
            serviceName: Self.serviceName, defaultPort: Self.defaultPort, environment: env)
        self.portOneURL = try env.httpURL("SNS_PORTONE_URL", default: "https://api.iamport.kr")
        self.impKey = try env.string("SNS_PORTONE_IMP_KEY")
        self.impSecret = try env.secret("SNS_PORTONE_IMP_SECRET")
        self.portOneTimeout = .milliseconds(try env.int("SNS_PORTONE_TIMEOUT_MS", default: 5_000, range: 100...60_000))
        self.portOneAttempts = try env.int("SNS_PORTONE_ATTEMPTS", default: 3, range: 1...10)
        self.reverifyInterval = .milliseconds(
            try env.int("SNS_PAYMENT_REVERIFY_INTERVAL_MS", default: 10_000, range: 100...3_600_000))
        self.claimMaxAge = TimeInterval(
            try env.int("SNS_PAYMENT_CLAIM_MAX_AGE", default: 86_400, range: 60...2_592_000))
    }

}
