import Foundation
import PostgresNIO
import SNSKafka
import SNSPlatform
import SNSTestSupport
import Testing

/// Whole client journeys against the running stack (`./sns test` starts it): nginx gateway → auth service
/// process → PostgreSQL, outbox relay → broker. Nothing in-process.
@Suite("Auth journey through the gateway")
struct AuthJourneyThroughGatewayTests {
    @Test func signUpLoginExpiryRefreshRetryWithdraw() async throws {
        let gateway = try GatewayClient()
        let name = TestEnvironment.unique("e2e")
        let email = "\(name)@example.com"
        let requestId = "e2e-\(name)"
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

        // Sign-up screen: check the email, join.
        let free = try await gateway.send("POST", "/v1/validation/email", json: #"{"email":"\#(email)"}"#)
        #expect(free.status == 200)
        #expect(try free.json.string("message") == "사용 가능한 이메일입니다.")
        let joined = try await gateway.send(
            "POST", "/v1/users/join",
            json: #"{"email":"\#(email)","password":"password123","nick":"\#(name)","phoneNum":"01012345678"}"#,
            headers: ["X-Request-ID": requestId, "traceparent": traceparent])
        #expect(joined.status == 200, "\(joined.text)")
        #expect(joined.header("X-Request-ID") == requestId, "the gateway keeps the client's request id")
        let userId = try #require(try joined.json.string("user_id"))
        #expect(try await gateway.send("POST", "/v1/validation/email", json: #"{"email":"\#(email)"}"#).status == 409)

        // Login.
        let login = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"\#(email)","password":"password123"}"#)
        #expect(login.status == 200)
        #expect(try login.json.keys == ["user_id", "email", "nick", "accessToken", "refreshToken"])
        let access = try #require(try login.json.string("accessToken"))
        let refresh = try #require(try login.json.string("refreshToken"))

        // Time passes: the access token expires → 419 → refresh with the expired token → retry succeeds.
        let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())
        let verifier = try await AccessTokenVerifier(publicKeyPEM: try TestEnvironment.jwtPublicKeyPEM())
        guard case .valid(let user) = await verifier.verify(access) else {
            Issue.record("login token does not verify"); return
        }
        let expired = try await signer.sign(
            AccessTokenClaims(
                userId: userId, sessionId: user.sessionId,
                issuedAt: Date().addingTimeInterval(-700), expiresAt: Date().addingTimeInterval(-100)))
        #expect(try await gateway.send("GET", "/v1/users/withdraw", headers: ["Authorization": expired]).status == 419)
        #expect(
            try await gateway.send("GET", "/v1/auth/refresh", headers: ["Authorization": access, "Refresh": refresh])
                .status == 409)
        let refreshed = try await gateway.send(
            "GET", "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": refresh])
        #expect(refreshed.status == 200, "\(refreshed.text)")
        let renewed = try #require(try refreshed.json.string("accessToken"))
        let withdrawn = try await gateway.send("GET", "/v1/users/withdraw", headers: ["Authorization": renewed])
        #expect(withdrawn.status == 200, "\(withdrawn.text)")
        #expect(try withdrawn.json.keys == ["user_id", "email", "nick"])

        // Withdrawn: refresh no longer works, login fails, the email is free again.
        #expect(
            try await gateway.send("GET", "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": refresh])
                .status == 401)
        #expect(
            try await gateway.send("POST", "/v1/users/login", json: #"{"email":"\#(email)","password":"password123"}"#)
                .status == 401)
        #expect(try await gateway.send("POST", "/v1/validation/email", json: #"{"email":"\#(email)"}"#).status == 200)

        // Both events left the auth process through its outbox relay, in order, keyed by the user id,
        // with the gateway's request id and the client's trace context in the headers of the first.
        // (Each distinct event once: publication is at least once.)
        let messages = try await TestPlatform.collectEvents(topic: Topic.users, key: userId, count: 2)
        #expect(messages.map { $0.header(EventHeader.eventType) } == ["user-registered", "user-withdrawn"])
        #expect(messages.first?.header(EventHeader.requestId) == requestId)
        #expect(messages.first?.header(EventHeader.traceparent) == traceparent)
    }

    @Test func gatewayEnforcesTheContractsGatekeepingCodes() async throws {
        let gateway = try GatewayClient()
        let noKey = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"a@b.co","password":"x"}"#, withKey: false)
        #expect(noKey.status == 420)
        #expect(try noKey.json.keys == ["message"])
        let unknown = try await gateway.send("GET", "/v1/somewhere/else")
        #expect(unknown.status == 444)
        #expect(try unknown.json.keys == ["message"])
        // Operational endpoints are not public.
        #expect(try await gateway.send("GET", "/metrics").status == 444)
        #expect(try await gateway.send("GET", "/ready").status == 444)
        // Header names are case-insensitive.
        let lower = try await gateway.send(
            "POST", "/v1/validation/email", json: #"{"email":"x\#(TestEnvironment.unique())@example.com"}"#,
            headers: ["sesackey": gateway.apiKey], withKey: false)
        #expect(lower.status == 200)
    }
}
