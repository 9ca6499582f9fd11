import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// `PUT /internal/v1/profile`: the profile write model the social service's public profile edit relies on.
@Suite("PUT /internal/v1/profile")
struct ProfileUpdateTests {
    static let allKeys: Set<String> = ["user_id", "email", "nick", "phoneNum", "birthDay", "profileImage", "updatedAt"]

    @Test func updateReturnsTheWholeProfileWithExactKeys() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let nick = TestEnvironment.unique("new")
            let image = try issuedImagePath(to: user.userId)
            let reply = try await client.updateProfile(
                #"{"nick":"\#(nick)","phoneNum":"01012345678","birthDay":"19990101","profileImage":"\#(image)"}"#,
                token: user.access)
            #expect(reply.status == 200, "\(reply.text)")
            let json = try reply.json
            #expect(json.keys == Self.allKeys)
            #expect(json.string("user_id") == user.userId)
            #expect(json.string("email") == user.email)
            #expect(json.string("nick") == nick)
            #expect(json.string("phoneNum") == "01012345678")
            #expect(json.string("birthDay") == "19990101")
            #expect(json.string("profileImage") == image)
            let updatedAt = try #require(json.string("updatedAt"))
            #expect(updatedAt.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(updatedAt)")
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    /// Absent keys stay as they are, `null` (or an empty string, as at join) clears `phoneNum`/`birthDay`, and
    /// unset optionals are omitted from the answer.
    @Test func absentKeysAreKeptAndNullClears() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let image = try issuedImagePath(to: user.userId, fileExtension: "png")
            let first = try await client.updateProfile(
                #"{"phoneNum":"010-1234-5678","birthDay":"2000-01-01","profileImage":"\#(image)"}"#, token: user.access)
            #expect(first.status == 200, "\(first.text)")
            #expect(try first.json.string("nick") == user.nick, "an absent nick is unchanged")

            let onlyNick = TestEnvironment.unique("only")
            let second = try await client.updateProfile(#"{"nick":"\#(onlyNick)"}"#, token: user.access)
            #expect(second.status == 200, "\(second.text)")
            #expect(try second.json.keys == Self.allKeys)
            #expect(try second.json.string("phoneNum") == "010-1234-5678")
            #expect(try second.json.string("birthDay") == "2000-01-01")
            #expect(try second.json.string("profileImage") == image)

            let cleared = try await client.updateProfile(#"{"phoneNum":null,"birthDay":""}"#, token: user.access)
            #expect(cleared.status == 200, "\(cleared.text)")
            #expect(try cleared.json.keys == ["user_id", "email", "nick", "profileImage", "updatedAt"])
            #expect(try cleared.json.string("nick") == onlyNick)

            // An empty edit changes nothing but is still an answer with the whole profile.
            let empty = try await client.updateProfile("{}", token: user.access)
            #expect(empty.status == 200, "\(empty.text)")
            #expect(try empty.json.keys == ["user_id", "email", "nick", "profileImage", "updatedAt"])
        }
    }

    /// A never-edited profile without optionals answers only the required keys.
    @Test func optionalsNeverSetAreOmitted() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let reply = try await client.updateProfile(#"{"nick":"\#(user.nick)"}"#, token: user.access)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json.keys == ["user_id", "email", "nick", "updatedAt"])
        }
    }

    @Test func ownNickInAnotherCaseIsNotAConflict() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let upper = try await client.updateProfile(#"{"nick":"\#(user.nick.uppercased())"}"#, token: user.access)
            #expect(upper.status == 200, "\(upper.text)")
            #expect(try upper.json.string("nick") == user.nick.uppercased())
            let same = try await client.updateProfile(#"{"nick":"\#(user.nick.uppercased())"}"#, token: user.access)
            #expect(same.status == 200, "\(same.text)")
            // Others still cannot take it, in any case.
            #expect(try await client.join(email: "x\(user.email)", nick: user.nick).status == 409)
        }
    }

    @Test func nickOfAnotherActiveAccountIs409CaseInsensitive() async throws {
        try await withAuthService { client async throws in
            let alice = try await client.freshUser()
            let bob = try await client.freshUser()
            let reply = try await client.updateProfile(
                #"{"nick":"\#(bob.nick.uppercased())","phoneNum":"0101"}"#, token: alice.access)
            #expect(reply.status == 409)
            #expect(try reply.json.keys == ["message"])
            // Nothing changed, nothing was published.
            #expect(try await client.login(email: alice.email).json.string("nick") == alice.nick)
            #expect(try await outboxEvents(of: alice.userId).map(\.type) == ["user-registered"])
            // A withdrawn account's nick is free again.
            #expect(
                try await client.send(.get, "/v1/users/withdraw", headers: ["Authorization": bob.access]).status == 200)
            #expect(try await client.updateProfile(#"{"nick":"\#(bob.nick)"}"#, token: alice.access).status == 200)
        }
    }

    /// Renaming frees the old nick for others.
    @Test func renameFreesTheOldNick() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            #expect(
                try await client.updateProfile(#"{"nick":"\#(TestEnvironment.unique("moved"))"}"#, token: user.access)
                    .status == 200)
            #expect(try await client.join(email: "again-\(user.email)", nick: user.nick).status == 200)
        }
    }

    /// Several users rename to the same free nick at once: exactly one wins, the others get 409 (never 500).
    @Test func concurrentRenamesToOneNickHaveExactlyOneWinner() async throws {
        try await withAuthService { client async throws in
            var users: [(userId: String, access: String)] = []
            for _ in 0..<6 {
                let user = try await client.freshUser()
                users.append((user.userId, user.access))
            }
            let wanted = TestEnvironment.unique("race")
            let results = try await withThrowingTaskGroup(of: (String, Int).self) { group in
                for user in users {
                    group.addTask {
                        (
                            user.userId,
                            try await client.updateProfile(#"{"nick":"\#(wanted)"}"#, token: user.access).status
                        )
                    }
                }
                return try await group.reduce(into: [(String, Int)]()) { $0.append($1) }
            }
            let statuses = results.map(\.1)
            #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == 409 }.count == users.count - 1, "\(statuses)")
            // Only the winner published a user-updated event.
            for (userId, status) in results {
                let types = try await outboxEvents(of: userId).map(\.type)
                #expect(types == (status == 200 ? ["user-registered", "user-updated"] : ["user-registered"]))
            }
        }
    }

    /// The race decided by the unique index itself, made deterministic: Bob's rename is in flight (uncommitted)
    /// when Alice asks for the same nick, so her pre-check finds it free and her write waits on the index for
    /// Bob's transaction; when Bob commits, she gets 409 and her transaction (with its event) rolls back.
    @Test func aRenameThatLosesTheUniqueIndexIs409() async throws {
        try await withAuthService { client async throws in
            let alice = try await client.freshUser()
            let bob = try await client.freshUser()
            let wanted = TestEnvironment.unique("idx")
            let reply = try await TestEnvironment.withDatabase { db in
                try await db.withConnection { bobConnection in
                    let logger = TestEnvironment.logger
                    try await bobConnection.query("BEGIN", logger: logger)
                    try await bobConnection.query(
                        "UPDATE auth.accounts SET nick = \(wanted) WHERE user_id = \(bob.userId)", logger: logger)
                    var bobPid: Int32 = 0
                    for try await pid in try await bobConnection.query("SELECT pg_backend_pid()", logger: logger)
                        .decode(Int32.self)
                    { bobPid = pid }
                    async let aliceReply = client.updateProfile(#"{"nick":"\#(wanted)"}"#, token: alice.access)
                    let blocked = await waitUntilBlocked(by: bobPid, db: db)
                    try await bobConnection.query("COMMIT", logger: logger)
                    let reply = try await aliceReply
                    #expect(blocked, "Alice's update never waited for Bob's transaction")
                    return reply
                }
            }
            #expect(reply.status == 409, "\(reply.text)")
            #expect(try reply.json.keys == ["message"])
            #expect(try await outboxEvents(of: alice.userId).map(\.type) == ["user-registered"])
            #expect(try await client.login(email: alice.email).json.string("nick") == alice.nick)
        }
    }

    @Test(arguments: ["with space", " lead", "tab\\there", "ideo\u{3000}space"])
    func nickWithWhitespaceIs402(nick: String) async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let reply = try await client.updateProfile(#"{"nick":"\#(nick)"}"#, token: user.access)
            #expect(reply.status == 402, "\(reply.text)")
            #expect(try reply.json.keys == ["message"])
        }
    }

    @Test(arguments: [
        #"{"nick":null}"#,  // nick cannot be cleared
        #"{"profileImage":null}"#,  // nor the image
        #"{"nick":""}"#,  // empty nick
        #"{"nick":123}"#,  // wrong types
        #"{"phoneNum":123}"#,
        #"{"birthDay":["19990101"]}"#,
        #"{"nick":"\#(String(repeating: "가", count: 101))"}"#,  // too long
        #"{"phoneNum":"\#(String(repeating: "0", count: 2001))"}"#,  // over 2 000 characters
        #"{"birthDay":"1999\u0001"}"#,  // control character
        #"{"nick":"a\u0000b"}"#,  // NUL
        #"{"profileImage":""}"#,  // not a media path
        #"{"profileImage":"uploads/profiles/../../etc/passwd"}"#,
        #"{"profileImage":"https://example.com/me.jpg"}"#,
        #"{"profileImage":"uploads/profiles/0123456789abcdef0123456789abcdef01234567.jpg"}"#,  // forged signature
        #"{"nick":"#,  // malformed JSON
        #"[1]"#,  // not an object
        #""#,  // empty body
    ])
    func badInputIs400NeverServerError(body: String) async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let reply = try await client.updateProfile(body, token: user.access)
            #expect(reply.status == 400, "\(body) → \(reply.status) \(reply.text)")
            #expect(try reply.json.keys == ["message"])
            #expect(try await outboxEvents(of: user.userId).map(\.type) == ["user-registered"])
        }
    }

    /// `profileImage` must be a profile image the media service issued to this very user.
    @Test func foreignPostOrMalformedImagePathsAre400() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let other = try await client.freshUser()
            let foreign = try issuedImagePath(to: other.userId)
            let postImage = try issuedImagePath(to: user.userId, kind: .posts)
            let mine = try issuedImagePath(to: user.userId)
            for path in [
                foreign, postImage, "/" + mine, mine.uppercased(), mine.replacingOccurrences(of: ".jpg", with: ".png"),
            ] {
                let reply = try await client.updateProfile(#"{"profileImage":"\#(path)"}"#, token: user.access)
                #expect(reply.status == 400, "\(path) → \(reply.status) \(reply.text)")
                #expect(try reply.json.keys == ["message"])
            }
            // A path signed with another key (another deployment, or a guess) is refused too.
            let otherKey = try MediaPathSigner(secret: "another-media-signing-key-0123456789abcdef")
                .issue(kind: .profiles, fileExtension: "jpg", owner: user.userId).string
            #expect(
                try await client.updateProfile(#"{"profileImage":"\#(otherKey)"}"#, token: user.access).status == 400)
            #expect(try await client.updateProfile(#"{"profileImage":"\#(mine)"}"#, token: user.access).status == 200)
        }
    }

    @Test func tokenAndKeyCodes() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let body = #"{"phoneNum":"010"}"#
            // 420 first, whatever the token.
            #expect(try await client.updateProfile(body, token: user.access, apiKey: .some(nil)).status == 420)
            #expect(try await client.updateProfile(body, token: user.access, apiKey: "wrong").status == 420)
            // 401: missing or unverifiable token.
            #expect(try await client.updateProfile(body, token: nil).status == 401)
            #expect(try await client.updateProfile(body, token: "garbage").status == 401)
            // 419: expired.
            let expired = try await signAccessToken(
                userId: user.userId, sessionId: try sessionId(of: user.access), expiresIn: -5)
            let reply = try await client.updateProfile(body, token: expired)
            #expect(reply.status == 419)
            #expect(try reply.json.keys == ["message"])
            // `Bearer ` is accepted too.
            #expect(try await client.updateProfile(body, token: "Bearer \(user.access)").status == 200)
            // Other methods on the path are unknown routes.
            #expect(
                try await client.send(
                    .post, "/internal/v1/profile", json: body, headers: ["Authorization": user.access]
                ).status == 444)
        }
    }

    /// A genuine token of an account that is gone (withdrawn, logged out, or never existed) is 401.
    @Test func withdrawnLoggedOutOrUnknownAccountsAre401() async throws {
        try await withAuthService { client async throws in
            let body = #"{"phoneNum":"010"}"#
            let withdrawn = try await client.freshUser()
            #expect(
                try await client.send(.get, "/v1/users/withdraw", headers: ["Authorization": withdrawn.access]).status
                    == 200)
            #expect(try await client.updateProfile(body, token: withdrawn.access).status == 401)

            let loggedOut = try await client.freshUser()
            #expect(
                try await client.send(.post, "/v1/users/logout", headers: ["Authorization": loggedOut.access]).status
                    == 200)
            #expect(try await client.updateProfile(body, token: loggedOut.access).status == 401)

            let unknown = try await signAccessToken(userId: ObjectID.generate(), sessionId: nil, expiresIn: 600)
            let reply = try await client.updateProfile(body, token: unknown)
            #expect(reply.status == 401)
            #expect(try reply.json.keys == ["message"])
            #expect(try await outboxEvents(of: withdrawn.userId).map(\.type) == ["user-registered", "user-withdrawn"])
        }
    }

    /// The change and its `user-updated` event (the whole current profile) are committed together.
    @Test func updateWritesUserUpdatedWithTheNewValues() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let nick = TestEnvironment.unique("evt")
            let image = try issuedImagePath(to: user.userId, fileExtension: "webp")
            let reply = try await client.updateProfile(
                #"{"nick":"\#(nick)","birthDay":"19990101","profileImage":"\#(image)"}"#,
                token: user.access)
            #expect(reply.status == 200, "\(reply.text)")
            let events = try await outboxEvents(of: user.userId)
            #expect(events.map(\.type) == ["user-registered", "user-updated"])
            let updated = try #require(events.last)
            #expect(updated.payload.keys == ["user_id", "nick", "birthDay", "profileImage", "updated_at"])
            #expect(updated.payload.string("user_id") == user.userId)
            #expect(updated.payload.string("nick") == nick)
            #expect(updated.payload.string("birthDay") == "19990101")
            #expect(updated.payload.string("profileImage") == image)
            let updatedAt = try reply.json.string("updatedAt")
            #expect(updated.payload.string("updated_at") == updatedAt)

            // The row says the same.
            let row = try await TestEnvironment.withDatabase { db in
                let rows = try await db.query(
                    """
                    SELECT nick, birth_day, profile_image FROM auth.accounts WHERE user_id = \(user.userId)
                    """, logger: TestEnvironment.logger)
                for try await row in rows.decode((String, String?, String?).self) { return row }
                return ("", nil, nil)
            }
            #expect(row.0 == nick && row.1 == "19990101" && row.2 == image)
        }
    }

    /// Each edit's `updatedAt` is later than the previous one's (and the sign-up's), however fast they come, so
    /// read models that keep the newest profile apply them in order.
    @Test func updatedAtIncreasesWithEveryEdit() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            var previous = Date.distantPast
            for index in 0..<5 {
                let reply = try await client.updateProfile(#"{"phoneNum":"010\#(index)"}"#, token: user.access)
                #expect(reply.status == 200, "\(reply.text)")
                let text = try #require(try reply.json.string("updatedAt"))
                let updatedAt = try #require(APIDateFormat.date(from: text))
                #expect(updatedAt > previous)
                previous = updatedAt
            }
            let events = try await outboxEvents(of: user.userId)
            let registeredAt = try #require(
                events.first?.payload.string("registered_at").flatMap(APIDateFormat.date(from:)))
            let firstUpdate = try #require(
                events.dropFirst().first?.payload.string("updated_at").flatMap(APIDateFormat.date(from:)))
            #expect(firstUpdate > registeredAt)
        }
    }

    /// Login reads the profile from the same row, so it returns the new nick and image at once.
    @Test func loginAfterwardsReturnsTheNewNickAndImage() async throws {
        try await withAuthService { client async throws in
            let user = try await client.freshUser()
            let nick = TestEnvironment.unique("after")
            let image = try issuedImagePath(to: user.userId)
            #expect(
                try await client.updateProfile(#"{"nick":"\#(nick)","profileImage":"\#(image)"}"#, token: user.access)
                    .status == 200)
            let login = try await client.login(email: user.email)
            #expect(login.status == 200)
            #expect(try login.json.keys == ["user_id", "email", "nick", "profileImage", "accessToken", "refreshToken"])
            #expect(try login.json.string("nick") == nick)
            #expect(try login.json.string("profileImage") == image)
        }
    }
}

/// The user's outbox rows, oldest first: event type and the event's payload.
func outboxEvents(of userId: String) async throws -> [(type: String, payload: JSONObject)] {
    try await TestEnvironment.withDatabase { db in
        var events: [(type: String, payload: JSONObject)] = []
        let rows = try await db.query(
            """
            SELECT event_type, (payload->'payload')::text FROM auth.outbox WHERE partition_key = \(userId) ORDER BY id
            """, logger: TestEnvironment.logger)
        for try await (type, payload) in rows.decode((String, String).self) {
            events.append((type, try JSONObject(Array(payload.utf8))))
        }
        return events
    }
}

/// Waits until some backend is blocked by the backend `pid` (a condition, not a duration; 60 s hang guard).
/// Never throws, so the caller always gets to end the blocking transaction.
func waitUntilBlocked(by pid: Int32, db: PostgresClient) async -> Bool {
    for _ in 0..<1200 {
        do {
            let rows = try await db.query(
                "SELECT count(*)::int4 FROM pg_stat_activity WHERE \(pid) = ANY(pg_blocking_pids(pid))",
                logger: TestEnvironment.logger)
            for try await count in rows.decode(Int32.self) where count > 0 { return true }
            try await Task.sleep(for: .milliseconds(50))
        } catch {
            return false
        }
    }
    return false
}
