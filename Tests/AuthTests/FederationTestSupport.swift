import AuthService
import Foundation
import IdentityProviderTestServer
import PostgresNIO
import SNSTestSupport
import Testing

/// The ids the in-process identity-provider test servers issue tokens for (its defaults).
enum TestProviders {
    static let firebaseProject = "sns-test-project"
    static let appleClientId = "com.example.sns"
    static let kakaoAppId = 100_001
}

/// Runs an in-process identity-provider test server (a real HTTP server on a free port: JWKS, ID tokens, Kakao API)
/// and an in-process auth service configured against it, and hands both to `body`. Each call has its own server
/// and its own auth (so its own key-set caches).
func withFederatedAuth(
    // A generous deadline: these calls reach an in-process server, but a loaded machine (parallel tests, a build
    // beside them) once took longer than 5 s. The deadline itself is tested with an explicit 1 s.
    jwksMaxAge: Int = 300, minRefreshInterval: Duration = .zero, timeout: Duration = .seconds(60),
    _ body: @Sendable (IdentityProvider, AuthClient) async throws -> Void
) async throws {
    let provider = IdentityProvider(
        settings: .init(
            firebaseProject: TestProviders.firebaseProject, appleClientId: TestProviders.appleClientId,
            kakaoAppId: TestProviders.kakaoAppId, jwksMaxAge: jwksMaxAge))
    try await IdentityProviderTestServer.withRunningServer(provider: provider) { baseURL in
        let federation = FederationConfiguration(
            firebaseProjectId: TestProviders.firebaseProject, firebaseJWKSURL: baseURL + "/firebase/jwks",
            appleClientIds: ["com.other.app", TestProviders.appleClientId], appleJWKSURL: baseURL + "/apple/auth/keys",
            kakaoAppId: Int64(TestProviders.kakaoAppId), kakaoAPIURL: baseURL, timeout: timeout,
            jwksMinRefreshInterval: minRefreshInterval)
        try await withAuthService(federation: federation) { client in
            try await body(provider, client)
        }
    }
}

extension AuthClient {
    func firebaseLogin(_ idToken: String) async throws -> Reply {
        try await send(.post, "/v1/users/login/firebase", json: #"{"idToken":"\#(idToken)"}"#)
    }

    func appleLogin(_ idToken: String, nick: String? = nil) async throws -> Reply {
        let nickPart = nick.map { #","nick":"\#($0)""# } ?? ""
        return try await send(.post, "/v1/users/login/apple", json: #"{"idToken":"\#(idToken)"\#(nickPart)}"#)
    }

    func kakaoLogin(_ token: String) async throws -> Reply {
        try await send(.post, "/v1/users/login/kakao", json: #"{"oauthToken":"\#(token)"}"#)
    }
}

extension IdentityProvider {
    func firebaseToken(
        _ subject: String, phone: String? = "+821012345678", expiresIn: Int? = nil, issuedAtOffset: Int? = nil
    ) throws -> String {
        try issueIDToken(
            .firebase, .init(subject: subject, phoneNumber: phone, expiresIn: expiresIn, issuedAtOffset: issuedAtOffset)
        )
    }
}

/// Rows of auth's federated tables for one identity, read straight from the database.
struct IdentityRows: Sendable {
    var links: Int
    var activeLinks: Int
    var userIds: [String]

    static func of(provider: String, subject: String) async throws -> IdentityRows {
        try await TestEnvironment.withDatabase { postgres in
            let rows = try await postgres.query(
                """
                SELECT user_id, released_at IS NULL FROM auth.identities WHERE provider = \(provider) AND subject = \(subject)
                ORDER BY created_at
                """, logger: TestEnvironment.logger)
            var result = IdentityRows(links: 0, activeLinks: 0, userIds: [])
            for try await (userId, active) in rows.decode((String, Bool).self) {
                result.links += 1
                if active { result.activeLinks += 1 }
                result.userIds.append(userId)
            }
            return result
        }
    }
}

/// One account's stored row (password hash, phone, withdrawal) and its `user-registered` outbox rows.
struct StoredAccount: Sendable {
    var hasPassword: Bool
    var phoneNum: String?
    var withdrawn: Bool
    var registeredEvents: Int

    static func of(_ userId: String) async throws -> StoredAccount? {
        try await TestEnvironment.withDatabase { postgres in
            let rows = try await postgres.query(
                """
                SELECT password_hash IS NOT NULL, phone_num, withdrawn_at IS NOT NULL,
                       (SELECT count(*) FROM auth.outbox WHERE partition_key = a.user_id AND event_type = 'user-registered')
                FROM auth.accounts a WHERE user_id = \(userId)
                """, logger: TestEnvironment.logger)
            for try await (password, phone, withdrawn, events) in rows.decode((Bool, String?, Bool, Int).self) {
                return StoredAccount(
                    hasPassword: password, phoneNum: phone, withdrawn: withdrawn, registeredEvents: events)
            }
            return nil
        }
    }
}
