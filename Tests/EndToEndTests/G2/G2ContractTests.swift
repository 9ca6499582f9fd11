import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// The G2 encoding (decision 0021) through the gateway: every operation of `docs/api/openapi-g2.json` is called with
/// `ProductId` for its success and its main errors, and every reply is checked against that document (exact key
/// sets, required keys, slashed paths, date formats). 421 for an unregistered `ProductId` on every operation.
@Suite("G2 (2024–25) API contract through the gateway")
struct G2ContractTests {
    static let unknownId = "000000000000000000000000"

    static let calls: [String: Set<Int>] = [
        "g2ValidateEmail": [200, 400, 409, 420, 421], "g2Join": [200, 400, 409, 421], "g2Login": [200, 401, 421],
        "g2LoginApple": [200, 421], "g2LoginKakao": [200, 421], "g2Refresh": [200, 401, 409, 421],
        "g2Withdraw": [200, 421],
        "g2CreatePost": [200, 400, 421], "g2ListPosts": [200, 400, 421], "g2GetPost": [200, 410, 421],
        "g2UpdatePost": [200, 400, 445, 421], "g2DeletePost": [200, 445, 421], "g2ListUserPosts": [200, 421],
        "g2ListHashtagPosts": [200, 400, 421], "g2Like": [200, 410, 421], "g2Like2": [200, 421],
        "g2ListLiked": [200, 421], "g2ListLiked2": [200, 421], "g2CreateComment": [200, 400, 410, 421],
        "g2UpdateComment": [200, 445, 421], "g2DeleteComment": [200, 445, 421], "g2UploadFiles": [200, 400, 421],
        "g2DownloadFile": [200, 410, 421], "g2ListFeed": [200, 421], "g2SearchPosts": [200, 400, 421],
        "g2ListNearby": [200, 400, 421], "g2ListComments": [200, 410, 421],
        "g2Follow": [200, 400, 409, 421], "g2Unfollow": [200, 410, 421], "g2GetMyProfile": [200, 421],
        "g2UpdateMyProfile": [200, 402, 421], "g2SearchUsers": [200, 400, 421], "g2GetProfile": [200, 410, 421],
        "g2ValidatePayment": [400, 410, 421], "g2ListPayments": [200, 421],
        "g2OpenChat": [200, 400, 421], "g2ListChats": [200, 421], "g2ListChatMessages": [200, 410, 421],
        "g2SendChatMessage": [200, 400, 421], "g2UploadChatFiles": [200, 421],
    ]

    func probe() throws -> ConformanceProbe {
        try ConformanceProbe(validator: try OpenAPIValidator.repositoryG2Document())
    }

    static func headers(_ token: String? = nil, app: String = TestEnvironment.productId) -> [String: String] {
        var headers = ["ProductId": app]
        if let token { headers["Authorization"] = token }
        return headers
    }

    static let stranger = headers(app: "not-registered")

    /// Joins (the join signs in: its answer holds the tokens).
    static func join(_ probe: ConformanceProbe) async throws -> (userId: String, token: String, refresh: String) {
        let nick = TestEnvironment.unique("g2c")
        let joined = try await probe.expect(
            200, "POST", "/v1/users/join",
            json: #"{"email":"\#(nick)@example.com","password":"password123","nick":"\#(nick)"}"#, headers: headers())
        return (
            try #require(try joined.json.string("user_id")), try #require(try joined.json.string("accessToken")),
            try #require(try joined.json.string("refreshToken"))
        )
    }

    @Test func everyDocumentedG2OperationIsExercised() throws {
        let validator = try OpenAPIValidator.repositoryG2Document()
        #expect(Set(Self.calls.keys) == Set(validator.operations.map(\.operationId)))
        for operation in validator.operations {
            for status in Self.calls[operation.operationId] ?? [] {
                #expect(operation.statuses.contains("\(status)"), "\(operation) is exercised for \(status)")
            }
        }
    }

    @Test func accountsAndTokens() async throws {
        let probe = try probe()
        let nick = TestEnvironment.unique("g2a")
        let email = "\(nick)@example.com"
        let body = #"{"email":"\#(email)","password":"password123","nick":"\#(nick)"}"#
        // mychelin validates without ProductId; WeeMo with it.
        try await probe.expect(200, "POST", "/v1/users/validation/email", json: #"{"email":"\#(email)"}"#)
        try await probe.expect(
            200, "POST", "/v1/users/validation/email", json: #"{"email":"\#(email)"}"#, headers: Self.headers())
        try await probe.expect(400, "POST", "/v1/users/validation/email", json: #"{"email":"x"}"#)
        try await probe.expect(420, "POST", "/v1/users/validation/email", json: "{}", withKey: false)
        try await probe.expect(
            421, "POST", "/v1/users/validation/email", json: #"{"email":"\#(email)"}"#, headers: Self.stranger)
        try await probe.expect(421, "POST", "/v1/users/join", json: body, headers: Self.stranger)
        try await probe.expect(400, "POST", "/v1/users/join", json: #"{"email":"\#(email)"}"#, headers: Self.headers())
        let joined = try await probe.expect(200, "POST", "/v1/users/join", json: body, headers: Self.headers())
        #expect(Set(try joined.json.keys) == ["user_id", "email", "nick", "accessToken", "refreshToken"])
        try await probe.expect(409, "POST", "/v1/users/join", json: body, headers: Self.headers())
        try await probe.expect(
            409, "POST", "/v1/users/validation/email", json: #"{"email":"\#(email)"}"#, headers: Self.headers())

        let credentials = #"{"email":"\#(email)","password":"password123"}"#
        try await probe.expect(421, "POST", "/v1/users/login", json: credentials, headers: Self.stranger)
        try await probe.expect(
            401, "POST", "/v1/users/login", json: #"{"email":"\#(email)","password":"wrong-pass"}"#,
            headers: Self.headers())
        let login = try await probe.expect(200, "POST", "/v1/users/login", json: credentials, headers: Self.headers())
        let token = try #require(try login.json.string("accessToken"))
        let refresh = try #require(try login.json.string("refreshToken"))

        try await probe.expect(
            409, "GET", "/v1/auth/refresh", headers: Self.headers(token).merging(["RefreshToken": refresh]) { $1 })
        let expired = try await ConformanceProbe.expiredToken(like: token)
        try await probe.expect(
            421, "GET", "/v1/auth/refresh", headers: Self.stranger.merging(["Authorization": expired]) { $1 })
        let renewed = try await probe.expect(
            200, "GET", "/v1/auth/refresh", headers: Self.headers(expired).merging(["RefreshToken": refresh]) { $1 })
        let rotated = try #require(try renewed.json.string("refreshToken"))
        #expect(rotated != refresh)
        try await probe.expect(
            200, "GET", "/v1/auth/refresh", headers: Self.headers(expired).merging(["Refresh": rotated]) { $1 })
        // Past the grace, a rotated-away token is refused.
        try await TestEnvironment.withDatabase { db in
            _ = try await db.query(
                "UPDATE auth.rotated_tokens SET replaced_at = now() - interval '2 minutes' WHERE replaced_at IS NOT NULL AND session_id IN (SELECT session_id FROM auth.refresh_tokens WHERE user_id = \(try #require(try login.json.string("user_id"))))",
                logger: TestEnvironment.logger)
            _ = try await db.query(
                "UPDATE auth.refresh_tokens SET replaced_at = now() - interval '2 minutes' WHERE replaced_at IS NOT NULL AND user_id = \(try #require(try login.json.string("user_id")))",
                logger: TestEnvironment.logger)
        }
        try await probe.expect(
            401, "GET", "/v1/auth/refresh", headers: Self.headers(expired).merging(["RefreshToken": refresh]) { $1 })

        // Apple and Kakao sign-ins answer the G2 login.
        let idp = GatewayClient(baseURL: URL(string: try TestEnvironment.identityProviderURL())!)
        let apple = try #require(
            try await idp.send(
                "POST", "/__sandbox/id-tokens/apple", json: #"{"sub":"\#(TestEnvironment.unique("g2ap"))"}"#
            ).json.string("idToken"))
        try await probe.expect(421, "POST", "/v1/users/login/apple", json: "{}", headers: Self.stranger)
        try await probe.expect(
            200, "POST", "/v1/users/login/apple",
            json: #"{"idToken":"\#(apple)","nick":"\#(TestEnvironment.unique("g2ap"))"}"#, headers: Self.headers())
        let kakao = try #require(
            try await idp.send("POST", "/__sandbox/kakao/tokens", json: "{}").json.string("access_token"))
        try await probe.expect(421, "POST", "/v1/users/login/kakao", json: "{}", headers: Self.stranger)
        try await probe.expect(
            200, "POST", "/v1/users/login/kakao", json: #"{"oauthToken":"\#(kakao)"}"#, headers: Self.headers())

        try await probe.expect(421, "GET", "/v1/users/withdraw", headers: Self.stranger)
        let other = try await Self.join(probe)
        let withdrawn = try await probe.expect(200, "GET", "/v1/users/withdraw", headers: Self.headers(other.token))
        #expect(Set(try withdrawn.json.keys) == ["user_id", "email", "nick"])
        probe.expectAnswered(
            Self.calls.filter {
                ["g2ValidateEmail", "g2Join", "g2Login", "g2LoginApple", "g2LoginKakao", "g2Refresh", "g2Withdraw"]
                    .contains($0.key)
            })
    }

    @Test func postsCommentsLikesAndFiles() async throws {
        let probe = try probe()
        let me = try await Self.join(probe)
        let you = try await Self.join(probe)
        let h = Self.headers(me.token)
        let away = Self.stranger.merging(["Authorization": me.token]) { $1 }
        let category = TestEnvironment.unique("g2cat")

        var form = MultipartForm()
        form.file("files", filename: "image_0.png", mimeType: "image/png", bytes: TestImages.png)
        try await probe.expect(
            421, "POST", "/v1/posts/files", body: form.finished(), contentType: form.contentType,
            headers: away)
        var empty = MultipartForm()
        empty.field("other", "x")
        try await probe.expect(
            400, "POST", "/v1/posts/files", body: empty.finished(), contentType: empty.contentType, headers: h)
        let uploaded = try await probe.expect(
            200, "POST", "/v1/posts/files", body: form.finished(), contentType: form.contentType, headers: h)
        let file = try #require(try uploaded.decode(APIModels.UploadedFiles.self).files.first)
        try await probe.expect(200, "GET", "/v1" + file, headers: h)
        try await probe.expect(421, "GET", "/v1" + file, headers: away)
        try await probe.expect(410, "GET", "/v1/uploads/posts/\(String(repeating: "a", count: 40)).png", headers: h)

        let body =
            ##"{"category":"\##(category)","title":"제목","content":"#태그 본문","files":["\##(file)"],"latitude":37.5,"longitude":127,"value8":"x"}"##
        try await probe.expect(421, "POST", "/v1/posts", json: body, headers: away)
        try await probe.expect(400, "POST", "/v1/posts", json: #"{"title":"no category"}"#, headers: h)
        let created = try await probe.expect(200, "POST", "/v1/posts", json: body, headers: h)
        let postId = try #require(try created.json.string("post_id"))
        let paths: [(String, String)] = [
            ("/v1/posts?category=\(category)&next=&limit=10", "list"),
            ("/v1/posts/users/\(me.userId)?category=\(category)", "user"),
            ("/v1/posts/hashtags?hashTag=태그&category=\(category)", "hashtag"),
            ("/v1/posts/likes/me?category=\(category)", "liked"), ("/v1/posts/likes-2/me", "liked2"),
            ("/v1/posts/feed?category=\(category)", "feed"),
            ("/v1/posts/search?title=제목&category=\(category)", "search"),
            ("/v1/posts/geolocation?latitude=37.5&longitude=127&maxDistance=10&category=\(category)", "nearby"),
            ("/v1/posts/\(postId)", "one"), ("/v1/posts/\(postId)/comments", "comments"),
        ]
        for (path, _) in paths {
            let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
            try await probe.expect(200, "GET", encoded, headers: h)
            try await probe.expect(421, "GET", encoded, headers: away)
        }
        try await probe.expect(400, "GET", "/v1/posts?limit=x", headers: h)
        try await probe.expect(400, "GET", "/v1/posts/hashtags", headers: h)
        try await probe.expect(400, "GET", "/v1/posts/search?title=", headers: h)
        try await probe.expect(400, "GET", "/v1/posts/geolocation?latitude=1", headers: h)
        try await probe.expect(410, "GET", "/v1/posts/\(Self.unknownId)", headers: h)
        try await probe.expect(410, "GET", "/v1/posts/\(Self.unknownId)/comments", headers: h)

        try await probe.expect(421, "PUT", "/v1/posts/\(postId)", json: "{}", headers: away)
        try await probe.expect(400, "PUT", "/v1/posts/\(postId)", json: #"{"latitude":1}"#, headers: h)
        try await probe.expect(
            445, "PUT", "/v1/posts/\(postId)", json: #"{"title":"x"}"#, headers: Self.headers(you.token))
        try await probe.expect(200, "PUT", "/v1/posts/\(postId)", json: #"{"value9":"y"}"#, headers: h)

        for like in ["like", "like-2"] {
            try await probe.expect(
                421, "POST", "/v1/posts/\(postId)/\(like)", json: #"{"like_status":true}"#,
                headers: Self.stranger.merging(["Authorization": you.token]) { $1 })
            try await probe.expect(
                200, "POST", "/v1/posts/\(postId)/\(like)", json: #"{"like_status":true}"#,
                headers: Self.headers(you.token))
        }
        try await probe.expect(
            410, "POST", "/v1/posts/\(Self.unknownId)/like", json: #"{"like_status":true}"#, headers: h)
        try await probe.expect(200, "GET", "/v1/posts/likes/me?category=\(category)", headers: Self.headers(you.token))

        try await probe.expect(421, "POST", "/v1/posts/\(postId)/comments", json: #"{"content":"x"}"#, headers: away)
        try await probe.expect(400, "POST", "/v1/posts/\(postId)/comments", json: #"{"content":" "}"#, headers: h)
        try await probe.expect(
            410, "POST", "/v1/posts/\(Self.unknownId)/comments", json: #"{"content":"x"}"#, headers: h)
        let comment = try await probe.expect(
            200, "POST", "/v1/posts/\(postId)/comments", json: #"{"content":"첫 댓글"}"#, headers: h)
        let commentId = try #require(try comment.json.string("comment_id"))
        let commentPath = "/v1/posts/\(postId)/comments/\(commentId)"
        try await probe.expect(421, "PUT", commentPath, json: #"{"content":"y"}"#, headers: away)
        try await probe.expect(445, "PUT", commentPath, json: #"{"content":"y"}"#, headers: Self.headers(you.token))
        try await probe.expect(200, "PUT", commentPath, json: #"{"content":"고친 댓글"}"#, headers: h)
        try await probe.expect(421, "DELETE", commentPath, headers: away)
        try await probe.expect(445, "DELETE", commentPath, headers: Self.headers(you.token))
        try await probe.expect(200, "DELETE", commentPath, headers: h)

        try await probe.expect(421, "DELETE", "/v1/posts/\(postId)", headers: away)
        try await probe.expect(445, "DELETE", "/v1/posts/\(postId)", headers: Self.headers(you.token))
        try await probe.expect(200, "DELETE", "/v1/posts/\(postId)", headers: h)
        probe.expectAnswered(
            Self.calls.filter { key, _ in
                !key.contains("Chat")
                    && ["Post", "Like", "Comment", "File", "Feed", "Nearby"].contains { key.contains($0) }
            })
    }

    @Test func socialPaymentsAndChat() async throws {
        let probe = try probe()
        let me = try await Self.join(probe)
        let you = try await Self.join(probe)
        let h = Self.headers(me.token)
        let away = Self.stranger.merging(["Authorization": me.token]) { $1 }

        try await probe.expect(421, "POST", "/v1/follow/\(you.userId)", headers: away)
        try await probe.expect(400, "POST", "/v1/follow/\(me.userId)", headers: h)
        let followed = try await probe.expect(200, "POST", "/v1/follow/\(you.userId)", headers: h)
        #expect(try followed.json.bool("follow_status") == true)
        try await probe.expect(409, "POST", "/v1/follow/\(you.userId)", headers: h)
        try await probe.expect(421, "DELETE", "/v1/follow/\(you.userId)", headers: away)
        try await probe.expect(200, "DELETE", "/v1/follow/\(you.userId)", headers: h)
        try await probe.expect(410, "DELETE", "/v1/follow/\(you.userId)", headers: h)

        try await probe.expect(421, "GET", "/v1/users/me/profile", headers: away)
        let mine = try await probe.expect(200, "GET", "/v1/users/me/profile", headers: h)
        #expect(try mine.json.string("email")?.hasSuffix("@example.com") == true)
        try await probe.expect(421, "GET", "/v1/users/\(you.userId)/profile", headers: away)
        let theirs = try await probe.expect(200, "GET", "/v1/users/\(you.userId)/profile", headers: h)
        #expect(try theirs.json.string("email") == "")
        try await probe.expect(410, "GET", "/v1/users/\(Self.unknownId)/profile", headers: h)
        try await probe.expect(421, "PUT", "/v1/users/me/profile", json: #"{"nick":"x"}"#, headers: away)
        try await probe.expect(402, "PUT", "/v1/users/me/profile", json: #"{"nick":"a b"}"#, headers: h)
        try await probe.expect(
            200, "PUT", "/v1/users/me/profile", json: #"{"nick":"\#(TestEnvironment.unique("g2n"))"}"#, headers: h)
        try await probe.expect(421, "GET", "/v1/users/search?nick=g2", headers: away)
        try await probe.expect(400, "GET", "/v1/users/search?nick=", headers: h)
        try await probe.expect(200, "GET", "/v1/users/search?nick=g2c", headers: h)

        try await probe.expect(421, "POST", "/v1/payments/validation", json: "{}", headers: away)
        try await probe.expect(400, "POST", "/v1/payments/validation", json: #"{"imp_uid":""}"#, headers: h)
        try await probe.expect(
            410, "POST", "/v1/payments/validation", json: #"{"imp_uid":"imp_1","post_id":"\#(Self.unknownId)"}"#,
            headers: h)
        try await probe.expect(421, "GET", "/v1/payments/me", headers: away)
        try await probe.expect(200, "GET", "/v1/payments/me", headers: h)

        try await probe.expect(421, "POST", "/v1/chats", json: #"{"opponent_id":"\#(you.userId)"}"#, headers: away)
        try await probe.expect(400, "POST", "/v1/chats", json: "{}", headers: h)
        let room = try await probe.expect(
            200, "POST", "/v1/chats", json: #"{"opponent_id":"\#(you.userId)"}"#, headers: h)
        let roomId = try #require(try room.json.string("room_id"))
        var form = MultipartForm()
        form.file("files", filename: "image_0.jpg", mimeType: "image/jpeg", bytes: TestImages.png)
        try await probe.expect(
            421, "POST", "/v1/chats/\(roomId)/files", body: form.finished(), contentType: form.contentType,
            headers: away)
        let files = try await probe.expect(
            200, "POST", "/v1/chats/\(roomId)/files", body: form.finished(), contentType: form.contentType, headers: h)
        let path = try #require(try files.decode(APIModels.UploadedFiles.self).files.first)
        #expect(path.hasPrefix("/uploads/chats/"))
        try await probe.expect(421, "POST", "/v1/chats/\(roomId)", json: #"{"content":"x"}"#, headers: away)
        try await probe.expect(400, "POST", "/v1/chats/\(roomId)", json: #"{"content":""}"#, headers: h)
        try await probe.expect(
            200, "POST", "/v1/chats/\(roomId)", json: #"{"content":"","files":["\#(path)"]}"#, headers: h)
        try await probe.expect(421, "GET", "/v1/chats", headers: away)
        try await probe.expect(200, "GET", "/v1/chats", headers: Self.headers(you.token))
        try await probe.expect(421, "GET", "/v1/chats/\(roomId)", headers: away)
        try await probe.expect(200, "GET", "/v1/chats/\(roomId)?before=2099-01-01T00:00:00Z", headers: h)
        try await probe.expect(410, "GET", "/v1/chats/\(Self.unknownId)", headers: h)
        probe.expectAnswered(
            Self.calls.filter { key, _ in
                ["Follow", "Profile", "SearchUsers", "Payment", "Chat"].contains { key.contains($0) }
            })
    }
}
