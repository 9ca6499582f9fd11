import Foundation
import IdentityProviderTestServer
import SNSTestSupport
import Testing

/// Federated sign-in (decision 0012) against an identity-provider test server of our own (a real HTTP server in
/// process): Firebase phone auth, Apple and Kakao end in the same session as an email login, one account per
/// verified identity.
@Suite("Federated sign-in: Firebase, Apple, Kakao")
struct FederatedSignInTests {
    static let loginKeys: Set<String> = ["user_id", "email", "nick", "accessToken", "refreshToken"]

    @Test func firebaseFirstSignInCreatesTheAccountAndLaterSignInsReturnIt() async throws {
        try await withFederatedAuth { idp, client in
            let subject = TestEnvironment.unique("fb")
            let first = try await client.firebaseLogin(try await idp.firebaseToken(subject, phone: "+821012345678"))
            #expect(first.status == 200, "\(first.text)")
            let json = try first.json
            #expect(json.keys == Self.loginKeys)
            let userId = try #require(json.string("user_id"))
            #expect(json.string("email") == "\(userId)@firebase.invalid")
            let nick = try #require(json.string("nick"))
            #expect(!nick.isEmpty && !nick.contains(where: \.isWhitespace))
            #expect(json.string("accessToken")?.split(separator: ".").count == 3)

            // Recorded: no password, the verified phone number as phoneNum, user-registered in the outbox, one link.
            let stored = try #require(try await StoredAccount.of(userId))
            #expect(!stored.hasPassword)
            #expect(stored.phoneNum == "+821012345678")
            #expect(stored.registeredEvents == 1)
            let links = try await IdentityRows.of(provider: "firebase", subject: subject)
            #expect(links.links == 1 && links.activeLinks == 1 && links.userIds == [userId])

            // A later sign-in (a fresh token) opens a new session of the same account; nothing new is created.
            let again = try await client.firebaseLogin(try await idp.firebaseToken(subject, phone: "+821012345678"))
            #expect(again.status == 200)
            #expect(try again.json.string("user_id") == userId)
            #expect(try again.json.string("refreshToken") != json.string("refreshToken"))
            #expect(try await StoredAccount.of(userId)?.registeredEvents == 1)

            // The session is a normal one: the generated nick can be changed with it.
            let renamed = TestEnvironment.unique("fbnick")
            let edit = try await client.updateProfile(#"{"nick":"\#(renamed)"}"#, token: json.string("accessToken"))
            #expect(edit.status == 200, "\(edit.text)")
            #expect(try edit.json.string("nick") == renamed)
            #expect(try edit.json.string("phoneNum") == "+821012345678")
        }
    }

    @Test func invalidFirebaseTokensAre401AndCreateNothing() async throws {
        try await withFederatedAuth { idp, client in
            let subject = TestEnvironment.unique("bad")
            func token(_ change: (inout IdentityProvider.TokenRequest) -> Void) async throws -> String {
                var request = IdentityProvider.TokenRequest(subject: subject, phoneNumber: "+821000000000")
                change(&request)
                return try await idp.issueIDToken(.firebase, request)
            }
            let cases: [(String, String)] = try await [
                ("expired", token { $0.expiresIn = -600 }),
                ("wrong audience", token { $0.audience = "another-project" }),
                ("wrong issuer", token { $0.issuer = "https://securetoken.google.com/another-project" }),
                ("Apple's issuer", token { $0.issuer = "https://appleid.apple.com" }),
                ("tampered payload", token { $0.tamper = true }),
                ("key the provider never published", token { $0.unpublishedKey = true }),
                ("kid of no key", token { $0.keyId = "no-such-kid" }),
                ("alg none", token { $0.algorithm = "none" }),
                ("alg HS256", token { $0.algorithm = "HS256" }),
                (
                    "issued in the future",
                    token {
                        $0.issuedAtOffset = 3600; $0.expiresIn = 7200
                    }
                ),
                ("authenticated in the future", token { $0.authTimeOffset = 3600 }),
                ("no auth_time", token { $0.omitAuthTime = true }),
                ("Apple's token", idp.issueIDToken(.apple, .init(subject: subject))),
                ("not a JWT", "abc.def"),
                ("garbage", "%%%"),
            ]
            for (name, token) in cases {
                let reply = try await client.firebaseLogin(token)
                #expect(reply.status == 401, "\(name): \(reply.text)")
                #expect(try reply.json.keys == ["message"], "\(name)")
            }
            let empty = try await client.firebaseLogin(try await idp.issueIDToken(.firebase, .init(subject: "")))
            #expect(empty.status == 401, "empty sub")
            #expect(try await IdentityRows.of(provider: "firebase", subject: subject).links == 0)
            // the tampered subject
            #expect(try await IdentityRows.of(provider: "firebase", subject: subject + "x").links == 0)

            // Missing or empty token: 400.
            #expect(try await client.send(.post, "/v1/users/login/firebase", json: #"{"idToken":""}"#).status == 400)
            #expect(try await client.send(.post, "/v1/users/login/firebase", json: #"{}"#).status == 400)
            #expect(try await client.send(.post, "/v1/users/login/firebase", json: #"{"idToken":1}"#).status == 400)
            // SesacKey first, as everywhere.
            #expect(
                try await client.send(.post, "/v1/users/login/firebase", json: #"{"idToken":"x"}"#, apiKey: .some(nil))
                    .status == 420)
        }
    }

    @Test func anUnknownKidAfterKeyRotationRefreshesTheKeySetOnce() async throws {
        try await withFederatedAuth(jwksMaxAge: 3600, minRefreshInterval: .zero) { idp, client in
            let subject = TestEnvironment.unique("rot")
            #expect(try await client.firebaseLogin(try await idp.firebaseToken(subject)).status == 200)
            #expect(await idp.statistics().jwksFetches["firebase"] == 1)
            // Cached: another sign-in does not fetch.
            #expect(try await client.firebaseLogin(try await idp.firebaseToken(subject)).status == 200)
            #expect(await idp.statistics().jwksFetches["firebase"] == 1)

            // The provider rotates: tokens now carry a kid our cached set does not have → one refetch, accepted.
            let newKid = try await idp.rotateKeys(.firebase)
            let rotated = try await idp.firebaseToken(subject)
            let published = try await idp.publishedKeyIds(.firebase)
            #expect(published.last == newKid)
            #expect(try await client.firebaseLogin(rotated).status == 200)
            #expect(await idp.statistics().jwksFetches["firebase"] == 2)
            #expect(try await client.firebaseLogin(try await idp.firebaseToken(subject)).status == 200)
            #expect(await idp.statistics().jwksFetches["firebase"] == 2)

            // Retiring the old key: the next refetch drops it.
            try await idp.rotateKeys(.firebase, retirePrevious: true)
            #expect(try await client.firebaseLogin(try await idp.firebaseToken(subject)).status == 200)
            #expect(await idp.statistics().jwksFetches["firebase"] == 3)
            #expect(try await client.firebaseLogin(rotated).status == 401, "signed with a key the provider retired")
        }
    }

    @Test func aFloodOfMadeUpKidsDoesNotHammerTheProvider() async throws {
        try await withFederatedAuth(jwksMaxAge: 3600, minRefreshInterval: .seconds(3600)) { idp, client in
            let subject = TestEnvironment.unique("flood")
            #expect(try await client.firebaseLogin(try await idp.firebaseToken(subject)).status == 200)
            #expect(await idp.statistics().jwksFetches["firebase"] == 1)
            let statuses = try await withThrowingTaskGroup(of: Int.self, returning: [Int].self) { group in
                for index in 0..<40 {
                    let token = try await idp.issueIDToken(.firebase, .init(subject: subject, keyId: "bogus-\(index)"))
                    group.addTask { try await client.firebaseLogin(token).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 401, count: 40))
            #expect(
                await idp.statistics().jwksFetches["firebase"] == 1,
                "the key set was fetched again within the minimum interval")
        }
    }

    @Test func theKeySetIsCachedForItsMaxAge() async throws {
        // max-age 0: every sign-in finds the set expired and fetches it again.
        try await withFederatedAuth(jwksMaxAge: 0) { idp, client in
            let subject = TestEnvironment.unique("age0")
            for _ in 0..<3 {
                let reply = try await client.firebaseLogin(try await idp.firebaseToken(subject))
                #expect(reply.status == 200)
            }
            #expect(await idp.statistics().jwksFetches["firebase"] == 3)
        }
        // max-age 3600: one fetch serves them all.
        try await withFederatedAuth(jwksMaxAge: 3600) { idp, client in
            let subject = TestEnvironment.unique("age1h")
            for _ in 0..<3 {
                let reply = try await client.firebaseLogin(try await idp.firebaseToken(subject))
                #expect(reply.status == 200)
            }
            #expect(await idp.statistics().jwksFetches["firebase"] == 1)
        }
    }

    @Test func aReplayedTokenDoesNotSignIntoOrResurrectAWithdrawnAccount() async throws {
        try await withFederatedAuth { idp, client in
            let subject = TestEnvironment.unique("replay")
            let token = try await idp.firebaseToken(subject)
            let login = try await client.firebaseLogin(token)
            #expect(login.status == 200)
            let userId = try #require(try login.json.string("user_id"))
            let withdraw = try await client.send(
                .get, "/v1/users/withdraw",
                headers: ["Authorization": try #require(try login.json.string("accessToken"))])
            #expect(withdraw.status == 200, "\(withdraw.text)")
            #expect(try withdraw.json.string("email") == "\(userId)@firebase.invalid")

            // The same token again, and another token from before the withdrawal: 401, nothing changes.
            let replay = try await client.firebaseLogin(token)
            #expect(replay.status == 401, "\(replay.text)")
            #expect(
                try await client.firebaseLogin(try await idp.firebaseToken(subject, issuedAtOffset: -30)).status == 401)
            #expect(try await StoredAccount.of(userId)?.withdrawn == true)
            let links = try await IdentityRows.of(provider: "firebase", subject: subject)
            #expect(links.links == 1 && links.activeLinks == 0)

            // A sign-in after the withdrawal (the user authenticated again) makes a new account.
            let fresh = try await client.firebaseLogin(try await idp.firebaseToken(subject, issuedAtOffset: 5))
            #expect(fresh.status == 200, "\(fresh.text)")
            let newId = try #require(try fresh.json.string("user_id"))
            #expect(newId != userId)
            #expect(try await StoredAccount.of(userId)?.withdrawn == true)
            #expect(try await IdentityRows.of(provider: "firebase", subject: subject).userIds == [userId, newId])
        }
    }

    @Test func federatedAccountsCannotLogInWithEmailAndPassword() async throws {
        try await withFederatedAuth { idp, client in
            let login = try await client.firebaseLogin(try await idp.firebaseToken(TestEnvironment.unique("pw")))
            let email = try #require(try login.json.string("email"))
            // Includes the plaintext of the dummy hash that unknown emails (and password-less accounts) are checked
            // against: it must not open the account either.
            // PasswordHasher.dummyHash at the tests' bcrypt cost 4 (AuthTestSupport)
            let dummy = "not-a-real-password-4"
            for password in ["", "password123", "x", dummy] {
                let reply = try await client.login(email: email, password: password)
                #expect(reply.status == (password.isEmpty ? 400 : 401), "\(password): \(reply.text)")
            }
            // The synthetic address cannot be taken (or checked) for an email account either.
            #expect(try await client.join(email: email, nick: TestEnvironment.unique("pw")).status == 400)
            #expect(try await client.send(.post, "/v1/validation/email", json: #"{"email":"\#(email)"}"#).status == 400)
        }
    }

    @Test func concurrentFirstSignInsOfOneIdentityMakeOneAccount() async throws {
        try await withFederatedAuth { idp, client in
            let subject = TestEnvironment.unique("race")
            var tokens: [String] = []
            for _ in 0..<6 { tokens.append(try await idp.firebaseToken(subject)) }
            let ids = try await withThrowingTaskGroup(of: String?.self, returning: Set<String?>.self) { group in
                for token in tokens { group.addTask { try await client.firebaseLogin(token).json.string("user_id") } }
                return try await group.reduce(into: []) { $0.insert($1) }
            }
            #expect(ids.count == 1 && ids.first! != nil, "\(ids)")
            let links = try await IdentityRows.of(provider: "firebase", subject: subject)
            #expect(links.links == 1)
            #expect(try await StoredAccount.of(try #require(links.userIds.first))?.registeredEvents == 1)
        }
    }

    // MARK: Apple

    @Test func appleSignInVerifiesAgainstApplesKeysAndTakesASuggestedNick() async throws {
        try await withFederatedAuth { idp, client in
            let subject = TestEnvironment.unique("apple")
            let nick = TestEnvironment.unique("애플")
            let first = try await client.appleLogin(
                try await idp.issueIDToken(.apple, .init(subject: subject, email: "x@privaterelay.appleid.com")),
                nick: nick)
            #expect(first.status == 200, "\(first.text)")
            #expect(try first.json.keys == Self.loginKeys)
            let userId = try #require(try first.json.string("user_id"))
            #expect(try first.json.string("email") == "\(userId)@apple.invalid")
            #expect(try first.json.string("nick") == nick)
            #expect(try await StoredAccount.of(userId)?.phoneNum == nil)
            // Later: the same account; the nick sent then is ignored.
            let again = try await client.appleLogin(
                try await idp.issueIDToken(.apple, .init(subject: subject)), nick: "other")
            #expect(try again.json.string("user_id") == userId)
            #expect(try again.json.string("nick") == nick)

            // A suggestion that is taken or has whitespace is replaced by a generated nick (never 402/409).
            let taken = try await client.appleLogin(
                try await idp.issueIDToken(.apple, .init(subject: TestEnvironment.unique("apple"))), nick: nick)
            #expect(taken.status == 200)
            #expect(try taken.json.string("nick") != nick)
            let spaced = try await client.appleLogin(
                try await idp.issueIDToken(.apple, .init(subject: TestEnvironment.unique("apple"))),
                nick: "Hong Gildong")
            #expect(spaced.status == 200)
            #expect(try spaced.json.string("nick")?.contains(" ") == false)

            // Apple's checks: audience one of our client ids, Apple's issuer, Apple's keys, not expired.
            #expect(
                try await client.appleLogin(
                    try await idp.issueIDToken(.apple, .init(subject: subject, audience: "com.evil.app"))
                ).status == 401)
            #expect(
                try await client.appleLogin(
                    try await idp.issueIDToken(.apple, .init(subject: subject, audience: "com.other.app")), nick: nil
                ).status == 200)
            #expect(
                try await client.appleLogin(
                    try await idp.issueIDToken(.apple, .init(subject: subject, issuer: "https://evil.example"))
                ).status == 401)
            #expect(
                try await client.appleLogin(
                    try await idp.issueIDToken(.apple, .init(subject: subject, expiresIn: -120))
                ).status == 401)
            #expect(try await client.appleLogin(try await idp.firebaseToken(subject)).status == 401, "a Firebase token")
            #expect(
                try await client.appleLogin(try await idp.issueIDToken(.apple, .init(subject: subject, tamper: true)))
                    .status == 401)
        }
    }

    // MARK: Kakao

    @Test func kakaoSignInAsksKakaoAndRefusesWhatKakaoRefuses() async throws {
        try await withFederatedAuth { idp, client in
            let issued = await idp.issueKakaoToken(email: "me@kakao.example")
            let first = try await client.kakaoLogin(issued.token)
            #expect(first.status == 200, "\(first.text)")
            #expect(try first.json.keys == Self.loginKeys)
            let userId = try #require(try first.json.string("user_id"))
            #expect(try first.json.string("email") == "\(userId)@kakao.invalid")
            #expect(try await IdentityRows.of(provider: "kakao", subject: String(issued.userId)).userIds == [userId])
            // Another token of the same Kakao user: the same account.
            let second = await idp.issueKakaoToken(userId: issued.userId)
            #expect(try await client.kakaoLogin(second.token).json.string("user_id") == userId)

            // Kakao refuses: unknown, expired, revoked, another app's token → 401.
            #expect(try await client.kakaoLogin("unknown-token").status == 401)
            #expect(try await client.kakaoLogin(await idp.issueKakaoToken(expiresIn: -10).token).status == 401)
            let revoked = await idp.issueKakaoToken()
            await idp.revokeKakaoToken(revoked.token)
            #expect(try await client.kakaoLogin(revoked.token).status == 401)
            let otherApp = await idp.issueKakaoToken(appId: 999)
            #expect(try await client.kakaoLogin(otherApp.token).status == 401)
            #expect(try await IdentityRows.of(provider: "kakao", subject: String(otherApp.userId)).links == 0)
            // A token that cannot be a bearer token: 401 without asking Kakao; none at all: 400.
            #expect(try await client.kakaoLogin("two words").status == 401)
            #expect(try await client.send(.post, "/v1/users/login/kakao", json: #"{"oauthToken":""}"#).status == 400)
            #expect(try await client.send(.post, "/v1/users/login/kakao", json: #"{"idToken":"x"}"#).status == 400)

            // Kakao failing: 503, nothing created; fine again afterwards.
            let fresh = await idp.issueKakaoToken()
            await idp.addKakaoFault(.error(status: 500), token: fresh.token)
            #expect(try await client.kakaoLogin(fresh.token).status == 503)
            await idp.addKakaoFault(.error(status: 502), token: fresh.token)
            #expect(try await client.kakaoLogin(fresh.token).status == 503)
            #expect(try await IdentityRows.of(provider: "kakao", subject: String(fresh.userId)).links == 0)
            #expect(try await client.kakaoLogin(fresh.token).status == 200)
        }
    }

    @Test func aKakaoThatDoesNotAnswerInTimeIs503() async throws {
        // A 1 s deadline per call against an answer held for 60 s (the server drops it when the test ends).
        try await withFederatedAuth(timeout: .seconds(1)) { idp, client in
            let issued = await idp.issueKakaoToken()
            await idp.addKakaoFault(.slow(.seconds(60)), token: issued.token)
            let slow = try await client.kakaoLogin(issued.token)
            #expect(slow.status == 503, "\(slow.text)")
            #expect(try slow.json.keys == ["message"])
            #expect(try await IdentityRows.of(provider: "kakao", subject: String(issued.userId)).links == 0)
        }
    }

    @Test func aKakaoTokenThatSignedIntoAWithdrawnAccountIsRefused() async throws {
        try await withFederatedAuth { idp, client in
            let issued = await idp.issueKakaoToken()
            let login = try await client.kakaoLogin(issued.token)
            let userId = try #require(try login.json.string("user_id"))
            #expect(
                try await client.send(
                    .get, "/v1/users/withdraw",
                    headers: ["Authorization": try #require(try login.json.string("accessToken"))]
                ).status == 200)
            #expect(try await client.kakaoLogin(issued.token).status == 401)
            #expect(try await StoredAccount.of(userId)?.withdrawn == true)
            // A new Kakao token of that user (signed in with Kakao again): a new account.
            let again = try await client.kakaoLogin(await idp.issueKakaoToken(userId: issued.userId).token)
            #expect(again.status == 200)
            #expect(try again.json.string("user_id") != userId)
        }
    }

    // MARK: Configuration

    @Test func aProviderThatIsNotConfiguredAnswers400SayingSo() async throws {
        try await withAuthService { client in
            for (path, body, variable) in [
                ("firebase", #"{"idToken":"x"}"#, "SNS_FIREBASE_PROJECT_ID"),
                ("apple", #"{"idToken":"x"}"#, "SNS_APPLE_CLIENT_IDS"),
                ("kakao", #"{"oauthToken":"x"}"#, "SNS_KAKAO_APP_ID"),
            ] {
                let reply = try await client.send(.post, "/v1/users/login/\(path)", json: body)
                #expect(reply.status == 400, "\(path)")
                #expect(try reply.json.keys == ["message"])
                let message = try #require(try reply.json.string("message"))
                #expect(message.contains("not configured") && message.contains(variable), "\(message)")
            }
        }
    }
}
