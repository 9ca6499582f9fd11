import Foundation
import SNSTestSupport
import Testing

@Suite("Tokens: 401 / 419 / refresh 200-409-418-401 / logout / withdraw")
struct TokenFlowTests {
    @Test func authenticatedRouteAcceptsBareAndBearerTokens() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            // logout is authenticated; use a second session so the first stays usable
            let second = try await client.login(email: user.email)
            let token = try #require(try second.json.string("accessToken"))
            #expect(
                try await client.send(.post, "/v1/users/logout", headers: ["Authorization": "Bearer \(token)"]).status
                    == 200)
            #expect(
                try await client.send(.post, "/v1/users/logout", headers: ["Authorization": user.access]).status == 200)
        }
    }

    @Test func missingGarbageOrForeignTokensAre401() async throws {
        try await withAuthService { client async throws in
            #expect(try await client.send(.get, "/v1/users/withdraw").status == 401)
            #expect(
                try await client.send(.get, "/v1/users/withdraw", headers: ["Authorization": "garbage"]).status == 401)
            let user = try await client.freshUser()
            var tampered = Array(user.access)
            tampered[tampered.count - 5] = tampered[tampered.count - 5] == "A" ? "B" : "A"
            #expect(
                try await client.send(.get, "/v1/users/withdraw", headers: ["Authorization": String(tampered)]).status
                    == 401)
        }
    }

    @Test func expiredAccessTokenIs419() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let expired = try await signAccessToken(
                userId: user.userId, sessionId: try sessionId(of: user.access), expiresIn: -5)
            let reply = try await client.send(.get, "/v1/users/withdraw", headers: ["Authorization": expired])
            #expect(reply.status == 419)
            #expect(try reply.json.keys == ["message"])
        }
    }

    /// The client journey: a request fails with 419, the client refreshes with the expired token plus its
    /// refresh token, gets a new access token and retries successfully. The refresh token is not rotated.
    @Test func expiredThenRefreshThenRetry() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let expired = try await signAccessToken(
                userId: user.userId, sessionId: try sessionId(of: user.access), expiresIn: -5)
            let refreshed = try await client.send(
                .get, "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": user.refresh])
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect(try refreshed.json.keys == ["accessToken"])
            let newToken = try #require(try refreshed.json.string("accessToken"))
            // the same refresh token works again (G1 clients keep it)
            let again = try await client.send(
                .get, "/v1/auth/refresh", headers: ["Authorization": expired, "refresh": user.refresh])
            #expect(again.status == 200)
            // retry with the new token
            #expect(
                try await client.send(.post, "/v1/users/logout", headers: ["Authorization": newToken]).status == 200)
        }
    }

    @Test func refreshWithStillValidAccessTokenIs409() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let reply = try await client.send(
                .get, "/v1/auth/refresh", headers: ["Authorization": user.access, "Refresh": user.refresh])
            #expect(reply.status == 409)
        }
    }

    @Test func refreshWithUnknownForeignOrMissingRefreshTokenIs401() async throws {
        try await withAuthService { client async throws in
            let alice = try await client.freshUser()
            let bob = try await client.freshUser()
            let expired = try await signAccessToken(
                userId: alice.userId, sessionId: try sessionId(of: alice.access), expiresIn: -5)
            #expect(
                try await client.send(
                    .get, "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": "unknown"]
                ).status == 401)
            #expect(
                try await client.send(
                    .get, "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": bob.refresh]
                ).status == 401)
            #expect(try await client.send(.get, "/v1/auth/refresh", headers: ["Authorization": expired]).status == 401)
            #expect(
                try await client.send(
                    .get, "/v1/auth/refresh", headers: ["Authorization": "garbage", "Refresh": alice.refresh]
                ).status == 401)
        }
    }

    /// Waits past a 1-second refresh lifetime: the outcome only gets more certain with time, never flaky.
    @Test func expiredRefreshTokenIs418() async throws {
        try await withAuthService(refreshTokenTTL: .seconds(1)) { client async throws in
            let user = try await client.freshUser()
            try await Task.sleep(for: .milliseconds(1500))
            let expired = try await signAccessToken(
                userId: user.userId, sessionId: try sessionId(of: user.access), expiresIn: -5)
            let reply = try await client.send(
                .get, "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": user.refresh])
            #expect(reply.status == 418)
            #expect(try reply.json.keys == ["message"])
        }
    }

    @Test func logoutRevokesTheSessionsRefreshToken() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let logout = try await client.send(.post, "/v1/users/logout", headers: ["Authorization": user.access])
            #expect(logout.status == 200)
            #expect(try logout.json.keys == ["message"])
            let expired = try await signAccessToken(
                userId: user.userId, sessionId: try sessionId(of: user.access), expiresIn: -5)
            #expect(
                try await client.send(
                    .get, "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": user.refresh]
                ).status == 401)
            // auth itself no longer accepts that session's access token
            #expect(
                try await client.send(.post, "/v1/users/logout", headers: ["Authorization": user.access]).status == 401)
        }
    }

    @Test func withdrawRevokesEverythingFreesEmailAndNickAndEmitsEvent() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let other = try await client.login(email: user.email)
            let otherRefresh = try #require(try other.json.string("refreshToken"))
            let otherAccess = try #require(try other.json.string("accessToken"))

            let reply = try await client.send(.get, "/v1/users/withdraw", headers: ["Authorization": user.access])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json.keys == ["user_id", "email", "nick"])
            #expect(try reply.json.string("user_id") == user.userId)

            // every session is gone
            #expect(
                try await client.send(.get, "/v1/users/withdraw", headers: ["Authorization": user.access]).status == 401
            )
            let expired = try await signAccessToken(
                userId: user.userId, sessionId: try sessionId(of: otherAccess), expiresIn: -5)
            #expect(
                try await client.send(
                    .get, "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": otherRefresh]
                ).status == 401)
            #expect(try await client.login(email: user.email).status == 401)
            // email and nick are free again
            #expect(try await client.join(email: user.email, nick: user.nick).status == 200)

            let types = try await TestEnvironment.withDatabase { db in
                var found: [String] = []
                let rows = try await db.query(
                    "SELECT event_type FROM auth.outbox WHERE partition_key = \(user.userId) ORDER BY id",
                    logger: TestEnvironment.logger)
                for try await type in rows.decode(String.self) { found.append(type) }
                return found
            }
            #expect(types == ["user-registered", "user-withdrawn"])
        }
    }
}
