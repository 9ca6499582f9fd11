import Foundation
import HummingbirdTesting
import NIOCore
import PortOneTestServer
import Testing

@Suite struct TokenTests {
    @Test func getTokenIssuesAToken() async throws {
        let ledger = await makeLedger(tokenTTL: 1800)
        try await makeApp(ledger).test(.router) { client in
            let response = try await client.executeRequest(
                uri: "/users/getToken", method: .post, headers: jsonHeaders,
                body: json(["imp_key": testKey, "imp_secret": testSecret])
            )
            #expect(response.status == .ok)
            let envelope = try decode(Envelope<TokenPayload>.self, response)
            #expect(envelope.code == 0)
            #expect(envelope.message == nil)
            let token = try #require(envelope.response)
            #expect(token.access_token.count == 40)
            #expect(token.access_token.allSatisfy { $0.isHexDigit })
            #expect(token.expired_at - token.now == 1800)
            #expect(String(buffer: response.body).contains(#""message":null"#))
        }
        #expect(await ledger.tokenRequests(for: testKey) == 1)
    }

    @Test func getTokenAcceptsFormBodies() async throws {
        let ledger = await makeLedger()
        try await makeApp(ledger).test(.router) { client in
            let response = try await client.executeRequest(
                uri: "/users/getToken", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "imp_key=\(testKey)&imp_secret=\(testSecret)")
            )
            #expect(response.status == .ok)
            #expect(try decode(Envelope<TokenPayload>.self, response).code == 0)
        }
    }

    @Test(arguments: [(testKey, "wrong"), ("unknown_key", testSecret), ("", "")])
    func wrongCredentialsAre401(key: String, secret: String) async throws {
        let ledger = await makeLedger()
        try await makeApp(ledger).test(.router) { client in
            let response = try await client.executeRequest(
                uri: "/users/getToken", method: .post, headers: jsonHeaders,
                body: json(["imp_key": key, "imp_secret": secret])
            )
            #expect(response.status == .unauthorized)
            let envelope = try decode(Envelope<Empty>.self, response)
            #expect(envelope.code == -1)
            #expect(envelope.message == "imp_key, imp_secret 정보가 올바르지 않습니다.")
            #expect(String(buffer: response.body).contains(#""response":null"#))
        }
    }

    @Test func validTokenIsReusedLikeTheRealAPI() async throws {
        let ledger = await makeLedger()
        try await makeApp(ledger).test(.router) { client in
            let first = try await client.fetchToken()
            let second = try await client.fetchToken()
            #expect(first == second)
        }
        #expect(await ledger.tokenRequests(for: testKey) == 2)
    }

    @Test func expiredTokensAreRefusedAndReplaced() async throws {
        let ledger = await makeLedger(tokenTTL: 600)
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            #expect(try await client.lookup(payment.impUid, token: token).status == .ok)
            await ledger.advanceClock(by: 601)
            #expect(try await client.lookup(payment.impUid, token: token).status == .unauthorized)
            let renewed = try await client.fetchToken()
            #expect(renewed != token)
            #expect(try await client.lookup(payment.impUid, token: renewed).status == .ok)
        }
    }

    @Test func expireTokensRevokesEveryTokenOfTheKeyMidWay() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            #expect(try await client.lookup(payment.impUid, token: token).status == .ok)

            let expired = try await client.executeRequest(
                uri: "/__sandbox/keys/\(testKey)/expire-tokens", method: .post, headers: [:], body: nil
            )
            #expect(expired.status == .ok)
            #expect(try bodyObject(expired)["revoked"] as? Int == 1)

            let refused = try await client.lookup(payment.impUid, token: token)
            #expect(refused.status == .unauthorized)
            let envelope = try decode(Envelope<Empty>.self, refused)
            #expect(envelope.code == -1)
            #expect(envelope.message == "Unauthorized")

            let renewed = try await client.fetchToken()
            #expect(renewed != token)
            #expect(try await client.lookup(payment.impUid, token: renewed).status == .ok)
        }
    }

    @Test func tokensOfOtherKeysSurviveExpiry() async throws {
        let ledger = await makeLedger()
        await ledger.addKey("other_key", secret: "other_secret")
        let other = try #require(await ledger.issueToken(impKey: "other_key", impSecret: "other_secret"))
        await ledger.expireTokens(of: testKey)
        #expect(await ledger.impKey(forToken: other.accessToken) == "other_key")
    }
}
