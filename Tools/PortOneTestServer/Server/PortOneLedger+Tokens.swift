// Credentials and access tokens (`POST /users/getToken`, token checks on the payment endpoints).

/// An access token as `POST /users/getToken` returns it.
package struct PortOneAccessToken: Codable, Sendable, Equatable {
    package var accessToken: String
    /// Unix seconds when issued.
    package var now: Int
    /// Unix seconds after which the token is refused.
    package var expiredAt: Int

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case now
        case expiredAt = "expired_at"
    }
}

extension PortOneLedger {
    /// Registers (or replaces) a key pair. `tokenTTL` is the lifetime of the tokens issued for it, in seconds.
    package func addKey(_ impKey: String, secret: String, tokenTTL: Int = 1800) {
        credentials[impKey] = Credential(secret: secret, tokenTTL: max(1, tokenTTL))
    }

    /// Issues a token for the key pair, or nil when the key is unknown or the secret wrong.
    ///
    /// Like the real API, a token that is still valid for more than a minute is handed out again rather than a
    /// new one (so concurrent callers share it); `expireTokens(of:)` or expiry forces a new one.
    package func issueToken(impKey: String, impSecret: String) -> PortOneAccessToken? {
        guard let credential = credentials[impKey], credential.secret == impSecret else { return nil }
        let now = self.now
        if let (token, issued) = tokens.first(where: { $0.value.impKey == impKey && $0.value.expiresAt - now > 60 }) {
            return PortOneAccessToken(accessToken: token, now: now, expiredAt: issued.expiresAt)
        }
        let token = PortOneIdentifiers.hex(bytes: 20)
        let issued = IssuedToken(impKey: impKey, issuedAt: now, expiresAt: now + credential.tokenTTL)
        tokens[token] = issued
        return PortOneAccessToken(accessToken: token, now: now, expiredAt: issued.expiresAt)
    }

    /// The key a token was issued for, or nil when it is unknown, expired or revoked.
    package func impKey(forToken token: String) -> String? {
        guard let issued = tokens[token] else { return nil }
        guard issued.expiresAt > now else {
            tokens[token] = nil
            return nil
        }
        return issued.impKey
    }

    /// Revokes every token of a key at once (a caller's cached token then gets 401). Returns how many.
    @discardableResult
    package func expireTokens(of impKey: String) -> Int {
        let revoked = tokens.filter { $0.value.impKey == impKey }.keys
        for token in revoked { tokens[token] = nil }
        return revoked.count
    }

    /// How many `POST /users/getToken` calls named this key (every outcome counts: success, 401, faulted).
    package func tokenRequests(for impKey: String) -> Int {
        tokenRequestCounts[impKey, default: 0]
    }
}
