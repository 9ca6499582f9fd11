import Foundation
import SNSPlatform

/// Which identity providers auth accepts, and where their keys and APIs are. A provider whose identifying
/// variable is unset is not configured: its login answers 400 saying so.
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `SNS_FIREBASE_PROJECT_ID` | Firebase project id: ID tokens must have `aud` = it and `iss` = `https://securetoken.google.com/<it>` | unset (Firebase login off) |
/// | `SNS_FIREBASE_JWKS_URL` | where Firebase publishes its ID-token keys (JWKS) | Google's securetoken JWK set |
/// | `SNS_APPLE_CLIENT_IDS` | Sign in with Apple client ids (bundle / services ids), comma-separated: `aud` must be one | unset (Apple login off) |
/// | `SNS_APPLE_JWKS_URL` | Apple's keys | `https://appleid.apple.com/auth/keys` |
/// | `SNS_KAKAO_APP_ID` | our Kakao app id: a Kakao token must have been issued to it | unset (Kakao login off) |
/// | `SNS_KAKAO_API_URL` | Kakao's REST API base URL | `https://kapi.kakao.com` |
/// | `SNS_FEDERATION_TIMEOUT_MS` | deadline of each call to a provider (key set, Kakao) | 5000 |
/// | `SNS_JWKS_MIN_REFRESH_INTERVAL_MS` | an unknown `kid` refetches a key set at most this often | 60000 |
package struct FederationConfiguration: Sendable {
    package static let firebaseIssuerPrefix = "https://securetoken.google.com/"
    package static let appleIssuer = "https://appleid.apple.com"

    package var firebaseProjectId: String?
    package var firebaseJWKSURL: String
    package var appleClientIds: [String]
    package var appleJWKSURL: String
    package var kakaoAppId: Int64?
    package var kakaoAPIURL: String
    package var timeout: Duration
    package var jwksMinRefreshInterval: Duration

    package init(
        firebaseProjectId: String? = nil,
        firebaseJWKSURL: String =
            "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
        appleClientIds: [String] = [], appleJWKSURL: String = "https://appleid.apple.com/auth/keys",
        kakaoAppId: Int64? = nil, kakaoAPIURL: String = "https://kapi.kakao.com",
        timeout: Duration = .seconds(5), jwksMinRefreshInterval: Duration = .seconds(60)
    ) {
        self.firebaseProjectId = firebaseProjectId
        self.firebaseJWKSURL = firebaseJWKSURL
        self.appleClientIds = appleClientIds
        self.appleJWKSURL = appleJWKSURL
        self.kakaoAppId = kakaoAppId
        self.kakaoAPIURL = kakaoAPIURL
        self.timeout = timeout
        self.jwksMinRefreshInterval = jwksMinRefreshInterval
    }

    package init(environment env: Environment) throws {
        let defaults = FederationConfiguration()
        if let project = env.optionalString("SNS_FIREBASE_PROJECT_ID") {
            // Firebase project ids: 6–30 lowercase letters, digits and hyphens.
            guard project.count <= 64,
                project.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
            else {
                throw ConfigurationError(
                    variable: "SNS_FIREBASE_PROJECT_ID",
                    reason: "must be a Firebase project id (lowercase letters, digits, hyphens)")
            }
            firebaseProjectId = project
        }
        firebaseJWKSURL = try env.httpURL("SNS_FIREBASE_JWKS_URL", default: defaults.firebaseJWKSURL)
        appleClientIds = (env.optionalString("SNS_APPLE_CLIENT_IDS") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard appleClientIds.allSatisfy({ id in id.allSatisfy { $0.isASCII && !$0.isWhitespace } }) else {
            throw ConfigurationError(
                variable: "SNS_APPLE_CLIENT_IDS", reason: "must be comma-separated client ids (e.g. com.example.app)")
        }
        appleJWKSURL = try env.httpURL("SNS_APPLE_JWKS_URL", default: defaults.appleJWKSURL)
        if let raw = env.optionalString("SNS_KAKAO_APP_ID") {
            guard let id = Int64(raw), id > 0 else {
                throw ConfigurationError(variable: "SNS_KAKAO_APP_ID", reason: "must be Kakao's numeric app id")
            }
            kakaoAppId = id
        }
        kakaoAPIURL = try env.httpURL("SNS_KAKAO_API_URL", default: defaults.kakaoAPIURL)
        timeout = .milliseconds(try env.int("SNS_FEDERATION_TIMEOUT_MS", default: 5000, range: 100...60_000))
        jwksMinRefreshInterval = .milliseconds(
            try env.int("SNS_JWKS_MIN_REFRESH_INTERVAL_MS", default: 60_000, range: 0...86_400_000))
    }
}
