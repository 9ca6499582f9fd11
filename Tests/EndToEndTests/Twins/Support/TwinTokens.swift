import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// Time passing for a twin's tokens, test-side only: the apps' clocks move on without the tests waiting.
enum TwinTokens {
    /// A token of the same session as `token` that expired 100 s ago, signed with the stack's key as auth would have
    /// issued it earlier.
    static func expired(sameSessionAs token: String, userId: String) async throws -> String {
        let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())
        return try await signer.sign(
            AccessTokenClaims(
                userId: userId, sessionId: AppSession.sessionId(in: token),
                issuedAt: Date().addingTimeInterval(-700), expiresAt: Date().addingTimeInterval(-100)))
    }

    /// The refresh token of `token`'s session expires (its 14 days pass): the session's expiry moves into the past in
    /// auth's database.
    static func expireRefreshToken(sessionOf token: String) async throws {
        let session = try #require(AppSession.sessionId(in: token), "the access token names no session")
        _ = try await TestEnvironment.withDatabase { db in
            try await db.query(
                "UPDATE auth.refresh_tokens SET expires_at = now() - interval '1 second' WHERE session_id = \(session)",
                logger: TestEnvironment.logger)
        }
    }
}
