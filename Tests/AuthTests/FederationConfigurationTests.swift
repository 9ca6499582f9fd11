import AuthService
import Foundation
import IdentityProviderTestServer
import SNSPlatform
import SNSTestSupport
import Testing

/// The identity providers' configuration: validated at start (a bad value names its variable), providers off
/// unless their id is set, and a key set that cannot be fetched answering 503.
@Suite("Federated sign-in configuration")
struct FederationConfigurationTests {
    @Test func providersAreOffUnlessTheirIdIsSetAndURLsDefaultToTheRealProviders() throws {
        let none = try FederationConfiguration(environment: Environment([:]))
        #expect(none.firebaseProjectId == nil && none.appleClientIds.isEmpty && none.kakaoAppId == nil)
        #expect(
            none.firebaseJWKSURL
                == "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")
        #expect(none.appleJWKSURL == "https://appleid.apple.com/auth/keys")
        #expect(none.kakaoAPIURL == "https://kapi.kakao.com")
        #expect(none.timeout == .seconds(5) && none.jwksMinRefreshInterval == .seconds(60))

        let all = try FederationConfiguration(
            environment: Environment([
                "SNS_FIREBASE_PROJECT_ID": "sesac-study-1234",
                "SNS_APPLE_CLIENT_IDS": "com.example.app, com.example.web",
                "SNS_KAKAO_APP_ID": "123456", "SNS_KAKAO_API_URL": "http://127.0.0.1:8191/",
                "SNS_FEDERATION_TIMEOUT_MS": "2500",
                "SNS_JWKS_MIN_REFRESH_INTERVAL_MS": "0",
            ]))
        #expect(all.firebaseProjectId == "sesac-study-1234")
        #expect(all.appleClientIds == ["com.example.app", "com.example.web"])
        #expect(all.kakaoAppId == 123_456)
        #expect(all.kakaoAPIURL == "http://127.0.0.1:8191")
        #expect(all.timeout == .milliseconds(2500) && all.jwksMinRefreshInterval == .zero)
    }

    @Test(arguments: [
        ("SNS_KAKAO_APP_ID", "abc"), ("SNS_KAKAO_APP_ID", "-5"), ("SNS_FIREBASE_PROJECT_ID", "My Project"),
        ("SNS_FIREBASE_JWKS_URL", "ftp://example.com/keys"), ("SNS_APPLE_JWKS_URL", "not a url"),
        ("SNS_KAKAO_API_URL", "kapi.kakao.com"),
        ("SNS_FEDERATION_TIMEOUT_MS", "0"), ("SNS_FEDERATION_TIMEOUT_MS", "soon"),
        ("SNS_JWKS_MIN_REFRESH_INTERVAL_MS", "-1"),
    ])
    func aBadValueNamesItsVariable(variable: String, value: String) {
        let error = #expect(throws: ConfigurationError.self) {
            _ = try FederationConfiguration(environment: Environment([variable: value]))
        }
        #expect(error?.variable == variable)
    }

    @Test func aKeySetThatCannotBeFetchedIs503AndCreatesNothing() async throws {
        let federation = FederationConfiguration(
            firebaseProjectId: TestProviders.firebaseProject, firebaseJWKSURL: "http://127.0.0.1:9/firebase/jwks",
            timeout: .seconds(2))
        let token = try await IdentityProvider().issueIDToken(
            .firebase, .init(subject: TestEnvironment.unique("nokeys")))
        try await withAuthService(federation: federation) { client in
            let reply = try await client.firebaseLogin(token)
            #expect(reply.status == 503, "\(reply.text)")
            #expect(try reply.json.keys == ["message"])
        }
    }
}
