import Crypto
import Foundation
import JWTKit
import Synchronization

/// Claims of an access token (ES256 JWT, signed by auth, verified locally by every service).
package struct AccessTokenClaims: JWTPayload, Equatable {
    package var sub: SubjectClaim
    package var iss: IssuerClaim
    package var iat: IssuedAtClaim
    package var exp: ExpirationClaim
    /// Refresh-token session id; logout revokes that session.
    package var sid: String?

    package static let issuer = "sns-auth"

    package init(userId: String, sessionId: String?, issuedAt: Date, expiresAt: Date) {
        self.sub = SubjectClaim(value: userId)
        self.iss = IssuerClaim(value: Self.issuer)
        self.iat = IssuedAtClaim(value: issuedAt)
        self.exp = ExpirationClaim(value: expiresAt)
        self.sid = sessionId
    }

    /// Signature is checked by jwt-kit; expiry is checked by `AccessTokenVerifier`, which must tell an
    /// expired-but-genuine token (419, refreshable) from an unverifiable one (401).
    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Parses PEM keys and derives their key id (RFC 7638 JWK thumbprint), so signer and verifiers agree on
/// `kid` without configuring it, and several public keys can be trusted during a key rotation.
package enum AccessTokenKeys {
    package static func publicKeys(pem: String) throws -> [ES256PublicKey] {
        let marker = "-----BEGIN PUBLIC KEY-----"
        let blocks = pem.components(separatedBy: marker).dropFirst().map { marker + $0 }
        guard !blocks.isEmpty else {
            throw ConfigurationError(variable: "SNS_JWT_PUBLIC_KEY", reason: "holds no PEM public key")
        }
        return try blocks.map { block in
            do { return try ES256PublicKey(pem: block) } catch {
                throw ConfigurationError(
                    variable: "SNS_JWT_PUBLIC_KEY", reason: "is not an EC P-256 public key in PEM form")
            }
        }
    }

    package static func keyID(of key: ES256PublicKey) -> String {
        guard let (x, y) = key.parameters else { return "default" }
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Data(SHA256.hash(data: Data(canonical.utf8))).base64URLEncoded()
    }

    /// One entry of `/.well-known/jwks.json`.
    package static func jwk(of key: ES256PublicKey) -> [String: String] {
        let (x, y) = key.parameters ?? ("", "")
        return ["kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": keyID(of: key), "x": x, "y": y]
    }
}

extension Data {
    /// Base64url without padding (RFC 4648 §5), as JWTs and opaque tokens use it. Written out by hand: it runs for
    /// every page's cursor, and Foundation's `replacingOccurrences` cost more than the rest of the encoding.
    package func base64URLEncoded() -> String {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        let length = (count * 4 + 2) / 3
        return withUnsafeBytes { bytes in
            alphabet.withUTF8Buffer { table in
                String(unsafeUninitializedCapacity: length) { out in
                    var written = 0
                    func put(_ sextet: UInt32) {
                        out[written] = table[Int(sextet & 0x3F)]
                        written += 1
                    }
                    var index = 0
                    while index + 3 <= bytes.count {
                        let group =
                            UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                        put(group >> 18)
                        put(group >> 12)
                        put(group >> 6)
                        put(group)
                        index += 3
                    }
                    switch bytes.count - index {
                    case 2:
                        let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                        put(group >> 18)
                        put(group >> 12)
                        put(group >> 6)
                    case 1:
                        let group = UInt32(bytes[index]) << 16
                        put(group >> 18)
                        put(group >> 12)
                    default: break
                    }
                    return written
                }
            }
        }
    }

    /// The bytes of base64url text, padded or not; nil when it is not base64url.
    package init?(base64URLEncoded text: String) {
        var base64 = Array(text.utf8)
        for index in base64.indices {
            switch base64[index] {
            case UInt8(ascii: "-"): base64[index] = UInt8(ascii: "+")
            case UInt8(ascii: "_"): base64[index] = UInt8(ascii: "/")
            default: break
            }
        }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        self.init(base64Encoded: Data(base64))
    }
}

/// Verifies access tokens locally with the auth service's public key(s).
package struct AccessTokenVerifier: Sendable {
    package enum Result: Sendable, Equatable {
        case valid(AuthenticatedUser)
        /// Genuine (signature checks out) but past `exp`.
        case expired(AuthenticatedUser)
        case invalid
    }

    let keys: JWTKeyCollection
    package let publicKeys: [ES256PublicKey]
    let cache: VerifiedTokenCache

    package init(publicKeyPEM: String, cacheCapacity: Int = 10_000) async throws {
        let publicKeys = try AccessTokenKeys.publicKeys(pem: publicKeyPEM)
        let keys = JWTKeyCollection()
        for key in publicKeys {
            await keys.add(ecdsa: key, kid: JWKIdentifier(string: AccessTokenKeys.keyID(of: key)))
        }
        self.keys = keys
        self.publicKeys = publicKeys
        self.cache = VerifiedTokenCache(capacity: cacheCapacity)
    }

    /// A client sends the same token on every request for its whole lifetime, and an ES256 verification
    /// (on jwt-kit's key-collection actor, so one at a time per process) costs more than a feed query. So
    /// genuine tokens are remembered, keyed by their exact text: the outcome of a signature check depends only
    /// on those bytes and the (fixed) keys; expiry is still decided on every use.
    package func verify(_ token: String, now: Date = Date()) async -> Result {
        guard token.utf8.count <= 4096 else { return .invalid }
        let user: AuthenticatedUser
        if let cached = cache.user(for: token) {
            user = cached
        } else {
            guard let claims = try? await keys.verify(token, as: AccessTokenClaims.self),
                claims.iss.value == AccessTokenClaims.issuer,
                !claims.sub.value.isEmpty
            else { return .invalid }
            user = AuthenticatedUser(userId: claims.sub.value, sessionId: claims.sid, expiresAt: claims.exp.value)
            cache.remember(token, user: user, now: now)
        }
        return now < user.expiresAt ? .valid(user) : .expired(user)
    }
}

/// Signs access tokens (auth service only; it alone holds the private key).
package struct AccessTokenSigner: Sendable {
    let keys: JWTKeyCollection
    package let keyID: String
    package let publicKey: ES256PublicKey

    package init(privateKeyPEM: String) async throws {
        let privateKey: ES256PrivateKey
        do { privateKey = try ES256PrivateKey(pem: privateKeyPEM) } catch {
            throw ConfigurationError(
                variable: "SNS_JWT_PRIVATE_KEY", reason: "is not an EC P-256 private key in PEM form")
        }
        self.publicKey = privateKey.publicKey
        self.keyID = AccessTokenKeys.keyID(of: privateKey.publicKey)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: privateKey, kid: JWKIdentifier(string: keyID))
        self.keys = keys
    }

    package func sign(_ claims: AccessTokenClaims) async throws -> String {
        try await keys.sign(claims, kid: JWKIdentifier(string: keyID))
    }
}

/// Genuine tokens seen recently (see `AccessTokenVerifier.verify`). Bounded: when full, expired entries are
/// dropped, and if that frees nothing the cache starts over (a cache miss only costs a verification).
final class VerifiedTokenCache: Sendable {
    private let entries = Mutex<[String: AuthenticatedUser]>([:])
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    func user(for token: String) -> AuthenticatedUser? {
        entries.withLock { $0[token] }
    }

    func remember(_ token: String, user: AuthenticatedUser, now: Date) {
        guard capacity > 0 else { return }
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expiresAt > now }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[token] = user
        }
    }
}
