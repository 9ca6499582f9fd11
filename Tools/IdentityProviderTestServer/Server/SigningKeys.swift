import CryptoExtras
import Foundation
import Synchronization

/// One RSA signing key of a realm: its `kid`, the private key, and the public JWK the realm publishes.
package struct SigningKey: Sendable {
    package let kid: String
    let privateKey: _RSA.Signing.PrivateKey

    /// `{"kty":"RSA","alg":"RS256","use":"sig","kid":…,"n":…,"e":…}`, as Google's and Apple's key sets publish them.
    var jwk: [String: String] {
        let primitives = (try? privateKey.publicKey.getKeyPrimitives())
        return [
            "kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
            "n": Base64URL.encode(primitives?.modulus ?? Data()),
            "e": Base64URL.encode(primitives?.publicExponent ?? Data()),
        ]
    }

    /// RS256: RSASSA-PKCS1-v1_5 over SHA-256 of `data`.
    func sign(_ data: Data) throws -> Data {
        try privateKey.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation
    }
}

/// RSA-2048 key material, generated once per process and handed out in order. Generating a key takes a moment
/// in debug builds, and tests start many servers: each server still gets distinct key ids, and keys it has not
/// published yet, but the material is reused across servers of one process (it is test material only).
enum RSAKeyPool {
    private static let keys = Mutex<[_RSA.Signing.PrivateKey]>([])

    static func sharedKey(_ index: Int) throws -> _RSA.Signing.PrivateKey {
        try keys.withLock { keys in
            while keys.count <= index { keys.append(try _RSA.Signing.PrivateKey(keySize: .bits2048)) }
            return keys[index]
        }
    }
}

enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
