import Foundation
import SNSTestSupport
import Testing

@Suite("POST /v1/users/login and /v1/validation/email")
struct LoginAndEmailTests {
    @Test func loginReturnsExactKeysAndOmitsUnsetProfileImage() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("login")
            let joined = try await client.join(email: "\(name)@example.com", nick: name)
            let reply = try await client.login(email: "\(name)@example.com")
            #expect(reply.status == 200)
            let json = try reply.json
            // profileImage omitted, never null
            #expect(json.keys == ["user_id", "email", "nick", "accessToken", "refreshToken"])
            #expect(json.string("user_id") == (try joined.json.string("user_id")))
            #expect(json.string("accessToken")?.split(separator: ".").count == 3)
            #expect((json.string("refreshToken")?.count ?? 0) >= 40)
        }
    }

    @Test func loginIsCaseInsensitiveOnEmail() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("case")
            _ = try await client.join(email: "\(name)@example.com", nick: name)
            #expect(try await client.login(email: "\(name.uppercased())@Example.COM").status == 200)
        }
    }

    @Test func wrongPasswordAndUnknownEmailAre401WithTheSameMessage() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("wrong")
            _ = try await client.join(email: "\(name)@example.com", nick: name)
            let wrong = try await client.login(email: "\(name)@example.com", password: "password999")
            let unknown = try await client.login(email: "nobody-\(name)@example.com")
            #expect(wrong.status == 401)
            #expect(unknown.status == 401)
            #expect(try wrong.json.string("message") == (try unknown.json.string("message")))
        }
    }

    @Test func loginWithMissingFieldsIs400() async throws {
        try await withAuthService { client async throws in
            #expect(try await client.send(.post, "/v1/users/login", json: #"{"email":"a@example.com"}"#).status == 400)
            #expect(try await client.send(.post, "/v1/users/login", json: #"{"email":"","password":""}"#).status == 400)
            #expect(try await client.send(.post, "/v1/users/login", json: "nonsense").status == 400)
        }
    }

    @Test func emailValidationUsesTheLiteralsClientsCompare() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("ev")
            let free = try await client.send(.post, "/v1/validation/email", json: #"{"email":"\#(name)@example.com"}"#)
            #expect(free.status == 200)
            #expect(try free.json.keys == ["message"])
            #expect(try free.json.string("message") == "사용 가능한 이메일입니다.")

            _ = try await client.join(email: "\(name)@example.com", nick: name)
            let taken = try await client.send(.post, "/v1/validation/email", json: #"{"email":"\#(name)@example.com"}"#)
            #expect(taken.status == 409)
            #expect(try taken.json.string("message") == "사용이 불가한 이메일입니다.")

            #expect(try await client.send(.post, "/v1/validation/email", json: #"{"email":"nope"}"#).status == 400)
            #expect(try await client.send(.post, "/v1/validation/email", json: #"{}"#).status == 400)
        }
    }
}

@Suite("SesacKey (420), unknown routes (444), operational endpoints")
struct GatekeepingTests {
    @Test func missingOrWrongSesacKeyIs420BeforeAnythingElse() async throws {
        try await withAuthService { client async throws in
            let missing = try await client.send(
                .post, "/v1/users/login", json: #"{"email":"a@b.co","password":"x"}"#, apiKey: .some(nil))
            #expect(missing.status == 420)
            #expect(try missing.json.keys == ["message"])
            #expect(try await client.send(.get, "/v1/users/withdraw", apiKey: .some("wrong")).status == 420)
            #expect(try await client.send(.get, "/v1/no/such/route", apiKey: .some(nil)).status == 420)
        }
    }

    @Test func sesacKeyHeaderNameIsCaseInsensitive() async throws {
        try await withAuthService { client async throws in
            let key = try TestEnvironment.apiKey()
            let reply = try await client.send(
                .post, "/v1/validation/email", json: #"{"email":"x\#(TestEnvironment.unique())@example.com"}"#,
                headers: ["sesackey": key], apiKey: .some(nil))
            #expect(reply.status == 200)
        }
    }

    @Test func unknownRouteAndWrongMethodAre444() async throws {
        try await withAuthService { client async throws in
            let unknown = try await client.send(.get, "/v1/does-not-exist")
            #expect(unknown.status == 444)
            #expect(try unknown.json.keys == ["message"])
            #expect(try await client.send(.delete, "/v1/users/login").status == 444)
        }
    }

    @Test func healthReadyMetricsAndJWKS() async throws {
        try await withAuthService { client async throws in
            #expect(try await client.send(.get, "/health", apiKey: .some(nil)).status == 200)
            // A fresh pool's first connection can take longer than /ready's 1.5 s bound on a machine the suite
            // saturates: then it honestly says "not ready" for a moment.
            var ready = try await client.send(.get, "/ready", apiKey: .some(nil))
            for _ in 0..<600 where ready.status != 200 {  // a hang guard of a minute
                try await Task.sleep(for: .milliseconds(100))
                ready = try await client.send(.get, "/ready", apiKey: .some(nil))
            }
            #expect(ready.status == 200, "\(ready.text)")
            #expect(try ready.json.bool("database") == true)
            #expect(try ready.json.bool("broker") == true)
            #expect(try await client.send(.get, "/v1/nowhere").status == 444)
            let metrics = try await client.send(.get, "/metrics", apiKey: .some(nil))
            #expect(metrics.status == 200)
            // Every answer is counted and timed by route, method and status (Hummingbird's metric names, which the
            // dashboard reads), errors with the status they were answered with.
            let lines = metrics.text.split(separator: "\n")
            let health = #"{http_route="/health",http_request_method="GET",http_response_status_code="200"}"#
            #expect(lines.contains { $0.hasPrefix("hb_requests" + health + " ") })
            #expect(lines.contains { $0.hasPrefix("http_server_request_duration_count" + health + " ") })
            #expect(lines.contains { $0.hasPrefix("hb_requests{") && $0.contains(#"http_response_status_code="444""#) })
            #expect(lines.contains { $0.hasPrefix(#"http_server_active_requests{http_request_method="GET"} "#) })
            let jwks = try await client.send(.get, "/.well-known/jwks.json", apiKey: .some(nil))
            #expect(jwks.status == 200)
            let keys = try #require(try jwks.json["keys"] as? [[String: Any]])
            #expect(keys.first?["kty"] as? String == "EC")
            #expect(keys.first?["alg"] as? String == "ES256")
            #expect(keys.first?["d"] == nil)  // never the private part
        }
    }

    @Test func responsesCarryARequestIdAndKeepTheGatewaysOne() async throws {
        try await withAuthService { client async throws in
            let given = try await client.send(.get, "/health", headers: ["X-Request-ID": "gw-123"], apiKey: .some(nil))
            #expect(given.headers[.init("X-Request-ID")!] == "gw-123")
            let generated = try await client.send(.get, "/v1/nowhere")
            #expect((generated.headers[.init("X-Request-ID")!]?.count ?? 0) > 8)
        }
    }
}
