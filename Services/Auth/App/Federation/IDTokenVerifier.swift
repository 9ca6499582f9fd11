import CryptoExtras
import Foundation
import Logging

/// Verifies an OpenID Connect ID token the way Firebase's and Apple's documentation ask: a compact JWS with header
/// `alg` RS256 and a `kid` the provider publishes (`JWKSCache`), a valid RSASSA-PKCS1-v1_5/SHA-256 signature,
/// `iss` = the provider, `aud` = one of our ids, `exp` in the future, `iat` (and `auth_time`, when present or
/// required) not in the future, `sub` non-empty. `leeway` absorbs clock differences with the provider.
struct IDTokenVerifier: Sendable {
    let issuer: String
    let audiences: Set<String>
    let keys: JWKSCache
    /// Firebase requires `auth_time`; Apple sends it but does not promise it.
    var requiresAuthTime = false
    var leeway: TimeInterval = 60
    static let maxTokenLength = 16_384

    /// The verified claims; `FederationError.invalidToken` (never naming the token) otherwise.
    func verify(_ token: String, now: Date = Date(), logger: Logger) async throws -> IDTokenClaims {
        guard token.utf8.count <= Self.maxTokenLength else { throw FederationError.invalidToken("too long") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(String(parts[0])),
            let payloadData = Base64URL.decode(String(parts[1])),
            let signatureData = Base64URL.decode(String(parts[2]))
        else { throw FederationError.invalidToken("not a signed JWT") }
        struct Header: Decodable {
            var alg: String?
            var kid: String?
        }
        guard let header = try? JSONDecoder().decode(Header.self, from: headerData) else {
            throw FederationError.invalidToken("unreadable header")
        }
        guard header.alg == "RS256" else { throw FederationError.invalidToken("algorithm must be RS256") }
        guard let kid = header.kid, !kid.isEmpty else { throw FederationError.invalidToken("no key id") }
        guard let key = try await keys.key(kid: kid, logger: logger) else {
            throw FederationError.invalidToken("unknown key id")
        }
        let signingInput = Data(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signatureData), for: signingInput,
                padding: .insecurePKCS1v1_5)
        else {
            throw FederationError.invalidToken("bad signature")
        }
        let claims: IDTokenClaims
        do {
            claims = try JSONDecoder().decode(IDTokenClaims.self, from: payloadData)
        } catch {
            throw FederationError.invalidToken("unreadable claims")
        }
        try check(claims, now: now.timeIntervalSince1970)
        return claims
    }

    private func check(_ claims: IDTokenClaims, now: TimeInterval) throws {
        guard claims.issuer == issuer else { throw FederationError.invalidToken("wrong issuer") }
        guard claims.audience.contains(where: audiences.contains) else {
            throw FederationError.invalidToken("wrong audience")
        }
        guard let expiresAt = claims.expiresAt else { throw FederationError.invalidToken("no expiry") }
        guard expiresAt > now - leeway else { throw FederationError.invalidToken("expired") }
        guard let issuedAt = claims.issuedAt, issuedAt <= now + leeway else {
            throw FederationError.invalidToken("issued in the future")
        }
        guard issuedAt < expiresAt else { throw FederationError.invalidToken("expires before it was issued") }
        if let authTime = claims.authTime {
            guard authTime <= now + leeway else { throw FederationError.invalidToken("authenticated in the future") }
        } else if requiresAuthTime {
            throw FederationError.invalidToken("no auth_time")
        }
        guard let subject = claims.subject, !subject.isEmpty, subject.utf8.count <= 255,
            !subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw FederationError.invalidToken("no subject") }
    }
}

/// The claims we read from an ID token. `aud` may be a string or an array; times are NumericDate seconds.
struct IDTokenClaims: Decodable, Sendable {
    var issuer: String?
    var audience: [String]
    var subject: String?
    var expiresAt: TimeInterval?
    var issuedAt: TimeInterval?
    var authTime: TimeInterval?
    /// Firebase phone authentication: the verified number, E.164.
    var phoneNumber: String?

    /// When the user signed in with the provider: `auth_time`, else `iat`.
    var signedInAt: Date? {
        (authTime ?? issuedAt).map { Date(timeIntervalSince1970: $0) }
    }

    enum CodingKeys: String, CodingKey {
        case issuer = "iss", audience = "aud", subject = "sub", expiresAt = "exp", issuedAt = "iat", authTime =
            "auth_time"
        case phoneNumber = "phone_number"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try? container.decodeIfPresent(String.self, forKey: .issuer)
        if let single = try? container.decode(String.self, forKey: .audience) {
            audience = [single]
        } else {
            audience = (try? container.decode([String].self, forKey: .audience)) ?? []
        }
        subject = try? container.decodeIfPresent(String.self, forKey: .subject)
        expiresAt = try? container.decodeIfPresent(Double.self, forKey: .expiresAt)
        issuedAt = try? container.decodeIfPresent(Double.self, forKey: .issuedAt)
        authTime = try? container.decodeIfPresent(Double.self, forKey: .authTime)
        phoneNumber = try? container.decodeIfPresent(String.self, forKey: .phoneNumber)
    }
}
