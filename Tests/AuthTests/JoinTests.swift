import Foundation
import SNSTestSupport
import Testing

@Suite("POST /v1/users/join")
struct JoinTests {
    @Test func joinReturnsExactKeys() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("join")
            let reply = try await client.join(
                email: "\(name)@example.com", nick: name, extra: #","phoneNum":"01012345678","birthDay":"19990101""#)
            #expect(reply.status == 200)
            let json = try reply.json
            #expect(json.keys == ["user_id", "email", "nick"])
            #expect(json.string("email") == "\(name)@example.com")
            #expect(json.string("nick") == name)
            let userId = try #require(json.string("user_id"))
            #expect(ObjectIDShape.matches(userId))
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test func duplicateEmailIs409CaseInsensitive() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("dup")
            #expect(try await client.join(email: "\(name)@example.com", nick: name).status == 200)
            let again = try await client.join(email: "\(name.uppercased())@EXAMPLE.com", nick: name + "x")
            #expect(again.status == 409)
            #expect(try again.json.keys == ["message"])
        }
    }

    @Test func duplicateNickIs409() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("nick")
            #expect(try await client.join(email: "\(name)@example.com", nick: name).status == 200)
            #expect(try await client.join(email: "other\(name)@example.com", nick: name.uppercased()).status == 409)
        }
    }

    @Test(arguments: ["with space", " lead", "tab\\there", "line\\nbreak", "ideo\u{3000}space"])
    func nickWithWhitespaceIs402(nick: String) async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("ws")
            let reply = try await client.join(email: "\(name)@example.com", nick: nick)
            #expect(reply.status == 402, "\(reply.text)")
            #expect(try reply.json.keys == ["message"])
        }
    }

    @Test func hangulAndEmojiNicksAreAccepted() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("k")
            let reply = try await client.join(email: "\(name)@example.com", nick: "새싹\(name.suffix(6))😀")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json.string("nick") == "새싹\(name.suffix(6))😀")
        }
    }

    @Test(arguments: [
        #"{"password":"password123","nick":"n"}"#,  // missing email
        #"{"email":"a@example.com","nick":"n"}"#,  // missing password
        #"{"email":"a@example.com","password":"password123"}"#,  // missing nick
        #"{"email":123,"password":"password123","nick":"n"}"#,  // wrong type
        #"{"email":"a@example.com","password":"password123","nick":null}"#,  // null
        #"{"email":"a@example.com","password":"#,  // malformed JSON
        #"[1,2,3]"#,  // not an object
        #""#,  // empty body
        #"{"email":"not-an-email","password":"password123","nick":"n1"}"#,  // invalid email
        #"{"email":"' OR 1=1 --@example.com","password":"password123","nick":"n2"}"#,  // SQL-looking email
        #"{"email":"short@example.com","password":"short","nick":"n3"}"#,  // short password
        #"{"email":"empty@example.com","password":"password123","nick":""}"#,  // empty nick
    ])
    func badInputIs400NeverServerError(body: String) async throws {
        try await withAuthService { client async throws in
            let reply = try await client.send(.post, "/v1/users/join", json: body)
            #expect(reply.status == 400, "\(body) → \(reply.status) \(reply.text)")
            #expect(try reply.json.keys == ["message"])
        }
    }

    @Test func oversizedFieldsAre400() async throws {
        try await withAuthService { client async throws in
            let long = String(repeating: "a", count: 300)
            #expect(try await client.join(email: "\(long)@example.com", nick: "n").status == 400)
            #expect(
                try await client.join(
                    email: "x\(TestEnvironment.unique())@example.com", password: String(repeating: "p", count: 100),
                    nick: "n"
                ).status == 400)
            #expect(
                try await client.join(
                    email: "y\(TestEnvironment.unique())@example.com", nick: String(repeating: "가", count: 101)
                ).status == 400)
            // Mobbie signs up with a UUID as its nick (36 characters).
            #expect(
                try await client.join(email: "z\(TestEnvironment.unique())@example.com", nick: UUID().uuidString).status
                    == 200)
            let huge = String(repeating: "x", count: 100_000)
            #expect(try await client.send(.post, "/v1/users/join", json: #"{"email":"\#(huge)"}"#).status == 400)
        }
    }

    @Test func sqlLookingNickIsStoredVerbatim() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("sql")
            let nick = "x');DROP\u{0027}--\(name.suffix(4))"
            let reply = try await client.join(email: "\(name)@example.com", nick: nick)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json.string("nick") == nick)
            #expect(try await client.login(email: "\(name)@example.com").status == 200)
        }
    }

    /// Concurrent duplicate joins: exactly one wins, every other one gets 409 (never 500).
    @Test func concurrentDuplicateJoinsHaveExactlyOneWinner() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("race")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await client.join(email: "\(name)@example.com", nick: "\(name)\(index)").status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == 409 }.count == 11, "\(statuses)")
        }
    }

    @Test func joinWritesUserRegisteredToTheOutboxInTheSameTransaction() async throws {
        try await withAuthService { client async throws in
            let name = TestEnvironment.unique("evt")
            let reply = try await client.join(email: "\(name)@example.com", nick: name)
            let userId = try #require(try reply.json.string("user_id"))
            let rows = try await TestEnvironment.withDatabase { db in
                var found: [String] = []
                let result = try await db.query(
                    "SELECT event_type FROM auth.outbox WHERE partition_key = \(userId)", logger: TestEnvironment.logger
                )
                for try await type in result.decode(String.self) { found.append(type) }
                return found
            }
            #expect(rows == ["user-registered"])
        }
    }
}

enum ObjectIDShape {
    static func matches(_ value: String) -> Bool {
        value.count == 24 && value.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }
}
