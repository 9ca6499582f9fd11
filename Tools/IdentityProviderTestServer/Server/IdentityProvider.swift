import Foundation

/// The state of the identity-provider test server: two OpenID realms that publish a JWKS and issue RS256 ID
/// tokens — Firebase (`iss` `https://securetoken.google.com/<project>`, `aud` `<project>`) and Sign in with Apple
/// (`iss` `https://appleid.apple.com`, `aud` the client id) — and a Kakao-like access-token API. Tests drive it
/// in process through these methods, or over HTTP through the sandbox API (`IdentityProviderSandboxRoutes`).
package actor IdentityProvider {
    package enum Realm: String, Sendable, CaseIterable, Codable {
        case firebase, apple
    }

    package struct Settings: Sendable {
        package var firebaseProject: String
        package var appleClientId: String
        package var kakaoAppId: Int
        /// `Cache-Control: max-age` of the JWKS answers, seconds.
        package var jwksMaxAge: Int

        package init(
            firebaseProject: String = "sns-test-project", appleClientId: String = "com.example.sns",
            kakaoAppId: Int = 100_001, jwksMaxAge: Int = 300
        ) {
            self.firebaseProject = firebaseProject
            self.appleClientId = appleClientId
            self.kakaoAppId = kakaoAppId
            self.jwksMaxAge = jwksMaxAge
        }
    }

    /// What to put in an ID token; everything but the subject has a realm default. Offsets are seconds from now.
    package struct TokenRequest: Codable, Sendable {
        package var subject: String
        package var phoneNumber: String?
        package var email: String?
        package var audience: String?
        package var issuer: String?
        /// `exp` = now + this (default 3600; negative for an expired token).
        package var expiresIn: Int?
        /// `iat` = now + this (default 0).
        package var issuedAtOffset: Int?
        /// `auth_time` = now + this (default: as `iat`).
        package var authTimeOffset: Int?
        package var omitAuthTime: Bool?
        /// Header `kid` to claim instead of the signing key's own.
        package var keyId: String?
        /// Sign with a key this realm never publishes.
        package var unpublishedKey: Bool?
        /// Change the payload after signing (the signature no longer matches).
        package var tamper: Bool?
        /// Header `alg` to claim (the signature stays RS256).
        package var algorithm: String?

        package init(
            subject: String, phoneNumber: String? = nil, email: String? = nil, audience: String? = nil,
            issuer: String? = nil, expiresIn: Int? = nil, issuedAtOffset: Int? = nil, authTimeOffset: Int? = nil,
            omitAuthTime: Bool? = nil, keyId: String? = nil, unpublishedKey: Bool? = nil, tamper: Bool? = nil,
            algorithm: String? = nil
        ) {
            self.subject = subject
            self.phoneNumber = phoneNumber
            self.email = email
            self.audience = audience
            self.issuer = issuer
            self.expiresIn = expiresIn
            self.issuedAtOffset = issuedAtOffset
            self.authTimeOffset = authTimeOffset
            self.omitAuthTime = omitAuthTime
            self.keyId = keyId
            self.unpublishedKey = unpublishedKey
            self.tamper = tamper
            self.algorithm = algorithm
        }

        enum CodingKeys: String, CodingKey {
            case subject = "sub", phoneNumber = "phone_number", email, audience = "aud", issuer = "iss"
            case expiresIn = "expires_in", issuedAtOffset = "iat_offset", authTimeOffset = "auth_time_offset"
            case omitAuthTime = "omit_auth_time", keyId = "kid", unpublishedKey = "unpublished_key", tamper, algorithm =
                "alg"
        }
    }

    struct KakaoToken: Sendable {
        var userId: Int64
        var appId: Int
        var expiresAt: Date
        var email: String?
    }

    /// A fault for the next `times` Kakao API calls: a slow answer or an HTTP error.
    package enum KakaoFault: Sendable {
        case slow(Duration)
        case error(status: Int)
    }

    package let settings: Settings
    private var published: [Realm: [SigningKey]] = [:]
    private var nextPoolIndex = 0
    private var kakaoTokens: [String: KakaoToken] = [:]
    /// Random per server, so servers of one test run (sharing one database) never hand out the same Kakao user.
    private var nextKakaoUserId = Int64.random(in: 1_000_000_000...9_000_000_000_000)
    private var kakaoFaults: [(fault: KakaoFault, token: String?, remaining: Int)] = []
    private(set) var jwksFetches: [Realm: Int] = [:]
    private(set) var kakaoCalls = 0
    private var jwksMaxAge: Int

    package init(settings: Settings = Settings()) {
        self.settings = settings
        self.jwksMaxAge = settings.jwksMaxAge
    }

    package func issuer(of realm: Realm) -> String {
        switch realm {
        case .firebase: "https://securetoken.google.com/\(settings.firebaseProject)"
        case .apple: "https://appleid.apple.com"
        }
    }

    package func audience(of realm: Realm) -> String {
        switch realm {
        case .firebase: settings.firebaseProject
        case .apple: settings.appleClientId
        }
    }

    // MARK: Keys

    /// The realm's key set and the `max-age` to answer it with; counts the fetch.
    package func jwks(_ realm: Realm) throws -> (json: Data, maxAge: Int) {
        jwksFetches[realm, default: 0] += 1
        let keys = try publishedKeys(realm)
        let json = try JSONSerialization.data(withJSONObject: ["keys": keys.map(\.jwk)], options: [.sortedKeys])
        return (json, jwksMaxAge)
    }

    package func setJWKSMaxAge(_ seconds: Int) {
        jwksMaxAge = seconds
    }

    /// Publishes a new key that signs from now on; the previous ones stay published unless `retirePrevious`
    /// (Google and Apple publish the next key before they use it and keep the old one a while). Returns its kid.
    @discardableResult
    package func rotateKeys(_ realm: Realm, retirePrevious: Bool = false) throws -> String {
        let key = try newKey()
        let previous = retirePrevious ? [] : try publishedKeys(realm)
        published[realm] = previous + [key]
        return key.kid
    }

    /// The kids the realm publishes, oldest first; the last one signs.
    package func publishedKeyIds(_ realm: Realm) throws -> [String] {
        try publishedKeys(realm).map(\.kid)
    }

    private func publishedKeys(_ realm: Realm) throws -> [SigningKey] {
        if let keys = published[realm], !keys.isEmpty { return keys }
        let first = [try newKey()]
        published[realm] = first
        return first
    }

    private func newKey() throws -> SigningKey {
        let material = try RSAKeyPool.sharedKey(nextPoolIndex)
        nextPoolIndex += 1
        let kid = (0..<20).map { _ in String("0123456789abcdef".randomElement()!) }.joined()
        return SigningKey(kid: kid, privateKey: material)
    }

    // MARK: ID tokens

    /// A signed ID token of `realm` (compact JWS, RS256), shaped like the real provider's.
    package func issueIDToken(_ realm: Realm, _ request: TokenRequest, now: Date = Date()) throws -> String {
        let key = try request.unpublishedKey == true ? newKey() : publishedKeys(realm).last!
        let nowSeconds = Int(now.timeIntervalSince1970)
        let issuedAt = nowSeconds + (request.issuedAtOffset ?? 0)
        var claims: [String: Any] = [
            "iss": request.issuer ?? issuer(of: realm),
            "aud": request.audience ?? audience(of: realm),
            "sub": request.subject,
            "iat": issuedAt,
            "exp": nowSeconds + (request.expiresIn ?? 3600),
        ]
        if request.omitAuthTime != true {
            claims["auth_time"] = nowSeconds + (request.authTimeOffset ?? request.issuedAtOffset ?? 0)
        }
        switch realm {
        case .firebase:
            claims["user_id"] = request.subject
            var identities: [String: Any] = [:]
            if let phone = request.phoneNumber {
                claims["phone_number"] = phone
                identities["phone"] = [phone]
            }
            claims["firebase"] = [
                "identities": identities, "sign_in_provider": request.phoneNumber == nil ? "custom" : "phone",
            ]
        case .apple:
            if let email = request.email {
                claims["email"] = email
                claims["email_verified"] = "true"
            }
            claims["c_hash"] = "test"
        }
        let header: [String: Any] = [
            "alg": request.algorithm ?? "RS256", "kid": request.keyId ?? key.kid, "typ": "JWT",
        ]
        let headerPart = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let payloadJSON = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let signingInput = headerPart + "." + Base64URL.encode(payloadJSON)
        let signature = Base64URL.encode(try key.sign(Data(signingInput.utf8)))
        guard request.tamper == true else { return signingInput + "." + signature }
        // Same structure, another subject: only the signature can tell.
        claims["sub"] = request.subject + "x"
        let tampered = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        return headerPart + "." + tampered + "." + signature
    }

    // MARK: Kakao

    /// A Kakao access token for a user (a new user id unless given) of an app (ours unless given).
    package func issueKakaoToken(
        userId: Int64? = nil, appId: Int? = nil, expiresIn: Int = 21_599, email: String? = nil,
        now: Date = Date()
    ) -> (token: String, userId: Int64) {
        let id: Int64
        if let userId {
            id = userId
        } else {
            nextKakaoUserId += 1
            id = nextKakaoUserId
        }
        let token = (0..<54).map { _ in
            String("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-".randomElement()!)
        }.joined()
        kakaoTokens[token] = KakaoToken(
            userId: id, appId: appId ?? settings.kakaoAppId,
            expiresAt: now.addingTimeInterval(TimeInterval(expiresIn)), email: email)
        return (token, id)
    }

    /// Kakao forgets the token (the user logged out or unlinked the app).
    package func revokeKakaoToken(_ token: String) {
        kakaoTokens[token] = nil
    }

    /// Arms a fault for the next `times` Kakao calls — only those presenting `token`, when given (so tests that
    /// share one server do not take each other's faults).
    package func addKakaoFault(_ fault: KakaoFault, times: Int = 1, token: String? = nil) {
        kakaoFaults.append((fault, token, times))
    }

    package func clearKakaoFaults() {
        kakaoFaults.removeAll()
    }

    /// Counts the call and takes the next armed fault, if any.
    func beginKakaoCall(token: String) -> KakaoFault? {
        kakaoCalls += 1
        guard let index = kakaoFaults.firstIndex(where: { $0.token == nil || $0.token == token }) else { return nil }
        let fault = kakaoFaults[index].fault
        kakaoFaults[index].remaining -= 1
        if kakaoFaults[index].remaining <= 0 { kakaoFaults.remove(at: index) }
        return fault
    }

    func kakaoToken(_ bearer: String, now: Date = Date()) -> KakaoToken? {
        guard let token = kakaoTokens[bearer], token.expiresAt > now else { return nil }
        return token
    }

    package struct Statistics: Codable, Sendable {
        package var jwksFetches: [String: Int]
        package var kakaoCalls: Int
        enum CodingKeys: String, CodingKey { case jwksFetches = "jwks_fetches", kakaoCalls = "kakao_calls" }
    }

    package func statistics() -> Statistics {
        Statistics(
            jwksFetches: Dictionary(
                uniqueKeysWithValues: Realm.allCases.map { ($0.rawValue, jwksFetches[$0, default: 0]) }),
            kakaoCalls: kakaoCalls)
    }
}
