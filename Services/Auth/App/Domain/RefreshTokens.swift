import Crypto
import Foundation
import SNSPlatform

/// Opaque refresh tokens: 32 random bytes, base64url. The database keeps only their SHA-256.
enum RefreshTokens {
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64URLEncoded()
    }

    static func hash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }
}
