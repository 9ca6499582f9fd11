import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// The 2023 (G0) API (API conventions §4, decision 0011) through the gateway: every G0 route is called with its success
/// and its main errors, every reply is checked against `docs/api/openapi-g0.json` (exact key sets:
/// `additionalProperties: false`, required keys, date formats), and the key sets the G0 clients decode are also
/// spelled out here. Status codes are the G1 operations' (§5): the G0 routes are an encoding of the same handlers.
@Suite("G0 (2023) API contract through the gateway")
struct G0ContractTests {
    static let unknownId = "000000000000000000000000"

    static let authCalls: [String: Set<Int>] = [
        "g0ValidateEmail": [200, 400, 409, 420], "g0Join": [200, 400, 402, 409, 420], "g0Login": [200, 400, 401, 420],
        "g0Refresh": [200, 401, 409, 418, 420], "g0Withdraw": [200, 401, 419, 420], "g0WithdrawPost": [200, 401],
    ]
    static let contentCalls: [String: Set<Int>] = [
        "g0CreatePost": [200, 400, 401, 419, 420], "g0ListPosts": [200, 400, 401], "g0GetPost": [200, 410],
        "g0UpdatePost": [200, 400, 410, 445], "g0DeletePost": [200, 410, 445], "g0ListUserPosts": [200],
        "g0ListHashtagPosts": [200, 400], "g0ToggleLike": [200, 410], "g0ListLiked": [200],
        "g0CreateComment": [200, 400, 410], "g0UpdateComment": [200, 400, 410, 445],
        "g0DeleteComment": [200, 410, 445],
        "g0DownloadFile": [200, 401, 410, 419, 420, 444],
    ]
    static let socialCalls: [String: Set<Int>] = [
        "g0Follow": [200, 400, 409, 410], "g0Unfollow": [200, 410], "g0GetMyProfile": [200, 401],
        "g0UpdateMyProfile": [200, 400, 402, 409], "g0GetProfile": [200, 410],
    ]

    static let postKeys: Set<String> = [
        "likes", "image", "hashTags", "comments", "_id", "creator", "time", "product_id",
    ]
    static let optionalPostKeys: Set<String> = [
        "title", "content", "content1", "content2", "content3", "content4", "content5",
    ]

    func probe() throws -> ConformanceProbe {
        try ConformanceProbe(validator: try OpenAPIValidator.repositoryG0Document())
    }

    @Test func everyDocumentedG0OperationIsExercised() throws {
        let validator = try OpenAPIValidator.repositoryG0Document()
        let exercised = [Self.authCalls, Self.contentCalls, Self.socialCalls].reduce(into: [String: Set<Int>]()) {
            $0.merge($1) { $0.union($1) }
        }
        #expect(Set(exercised.keys) == Set(validator.operations.map(\.operationId)))
        for operation in validator.operations {
            for status in exercised[operation.operationId] ?? [] {
                #expect(
                    operation.statuses.contains("\(status)"),
                    "\(operation) is exercised for \(status), which it does not document")
            }
        }
    }

    /// Unknown unprefixed paths are still 444, and SesacKey is still checked first (420).
    @Test func unknownPathsAndSesacKey() async throws {
        let gateway = try GatewayClient()
        for path in ["/posts", "/profile", "/like/me", "/users/join", "/comment", "/post/x/comments"] {
            let reply = try await gateway.send("GET", path)
            #expect(reply.status == 444, "\(path) → \(reply.status) \(reply.text)")
            #expect(try reply.json.keys == ["message"])
            #expect(try await gateway.send("GET", path, withKey: false).status == 420, "\(path) without SesacKey")
        }
        let noKey = try await gateway.send(
            "POST", "/join", json: #"{"email":"a@example.com","password":"password123","nick":"a"}"#, withKey: false)
        #expect(noKey.status == 420)
        #expect(try noKey.json.string("message") == "This service sesac_memolease only")
    }

    // MARK: Auth

    @Test func authRoutes() async throws {
        let probe = try probe()
        let nick = TestEnvironment.unique("g0a")
        let email = "\(nick)@example.com"
        let join =
            #"{"email":"\#(email)","password":"password123","nick":"\#(nick)","phoneNum":"01012345678","birthDay":"19990101"}"#

        let free = try await probe.expect(200, "POST", "/validation/email", json: #"{"email":"\#(email)"}"#)
        #expect(try free.json.keys == ["message"])
        try await probe.expect(400, "POST", "/validation/email", json: #"{"email":"not-an-address"}"#)
        try await probe.expect(420, "POST", "/validation/email", json: #"{"email":"\#(email)"}"#, withKey: false)
        try await probe.expect(400, "POST", "/join", json: #"{"email":"\#(email)","nick":"\#(nick)"}"#)
        try await probe.expect(
            402, "POST", "/join", json: #"{"email":"\#(email)","password":"password123","nick":"a b"}"#)
        try await probe.expect(420, "POST", "/join", json: join, withKey: false)
        let joined = try await probe.expect(200, "POST", "/join", json: join)
        #expect(try joined.json.keys == ["_id", "email", "nick"])
        let userId = try #require(try joined.json.string("_id"))
        try await probe.expect(409, "POST", "/join", json: join)
        try await probe.expect(409, "POST", "/validation/email", json: #"{"email":"\#(email)"}"#)

        try await probe.expect(400, "POST", "/login", json: #"{"email":"","password":""}"#)
        try await probe.expect(401, "POST", "/login", json: #"{"email":"\#(email)","password":"wrong-password"}"#)
        try await probe.expect(
            420, "POST", "/login", json: #"{"email":"\#(email)","password":"password123"}"#, withKey: false)
        let login = try await probe.expect(
            200, "POST", "/login", json: #"{"email":"\#(email)","password":"password123"}"#)
        #expect(try login.json.keys == ["_id", "token", "refreshToken"])
        #expect(try login.json.string("_id") == userId)
        let token = try #require(try login.json.string("token"))
        let refresh = try #require(try login.json.string("refreshToken"))

        // The G0 token works on G1 routes and vice versa: one account, one session model.
        let gateway = try GatewayClient()
        #expect(try await gateway.send("GET", "/v1/posts", headers: ["Authorization": token]).status == 200)

        // Refresh: still valid 409, expired + refresh 200 {token}, unknown refresh 401, no key 420, expired refresh 418.
        let expired = try await ConformanceProbe.expiredToken(like: token)
        try await probe.expect(409, "GET", "/refresh", headers: ["Authorization": token, "Refresh": refresh])
        let renewed = try await probe.expect(
            200, "GET", "/refresh", headers: ["Authorization": expired, "Refresh": refresh])
        #expect(try renewed.json.keys == ["token"])
        let fresh = try #require(try renewed.json.string("token"))
        try await probe.expect(401, "GET", "/refresh", headers: ["Authorization": expired, "Refresh": "unknown"])
        try await probe.expect(
            420, "GET", "/refresh", headers: ["Authorization": expired, "Refresh": refresh], withKey: false)
        let second = try await probe.expect(
            200, "POST", "/login", json: #"{"email":"\#(email)","password":"password123"}"#)
        let secondToken = try #require(try second.json.string("token"))
        let secondExpired = try await ConformanceProbe.expiredToken(like: secondToken)
        let secondSession = try await ConformanceProbe.sessionId(of: secondToken)
        try await TestEnvironment.withDatabase { postgres in
            _ = try await postgres.query(
                "UPDATE auth.refresh_tokens SET expires_at = now() - interval '1 second' WHERE session_id = \(secondSession)",
                logger: TestEnvironment.logger)
        }
        try await probe.expect(
            418, "GET", "/refresh",
            headers: ["Authorization": secondExpired, "Refresh": try #require(try second.json.string("refreshToken"))])

        // Withdraw: GET (and POST, below), with their token errors.
        try await probe.expect(401, "GET", "/withdraw")
        try await probe.expect(419, "GET", "/withdraw", headers: ["Authorization": expired])
        try await probe.expect(420, "GET", "/withdraw", headers: ["Authorization": fresh], withKey: false)
        let withdrawn = try await probe.expect(200, "GET", "/withdraw", headers: ["Authorization": fresh])
        #expect(try withdrawn.json.keys == ["_id", "email", "nick"])
        #expect(try withdrawn.json.string("_id") == userId)
        try await probe.expect(401, "GET", "/withdraw", headers: ["Authorization": fresh])

        let other = try await signUp(probe, "g0w")
        try await probe.expect(200, "POST", "/withdraw", headers: other.auth)
        try await probe.expect(401, "POST", "/withdraw", headers: other.auth)

        probe.expectAnswered(Self.authCalls)
    }

    // MARK: Posts, comments, likes, images

    @Test func contentRoutes() async throws {
        let probe = try probe()
        let gateway = try GatewayClient()
        let owner = try await signUp(probe, "g0c")
        let other = try await signUp(probe, "g0c")
        let expired = try await ConformanceProbe.expiredToken(like: owner.token)
        let product = TestEnvironment.unique("g0feed_")
        let tag = TestEnvironment.unique("태그")

        // Create: multipart, two inline images; the errors of G1's create plus the upload's.
        let form = MultipartForm.g0Post(
            ["title": "제목", "content": "본문 #\(tag)", "content1": "익명", "product_id": product],
            images: [TestImages.png, TestImages.png])
        try await probe.expect(401, "POST", "/post", body: form.finished(), contentType: form.contentType)
        try await probe.expect(
            419, "POST", "/post", body: form.finished(), contentType: form.contentType,
            headers: ["Authorization": expired])
        try await probe.expect(
            420, "POST", "/post", body: form.finished(), contentType: form.contentType, headers: owner.auth,
            withKey: false)
        let noProduct = MultipartForm.g0Post(["content": "x"], images: [TestImages.png])
        try await probe.expect(
            400, "POST", "/post", body: noProduct.finished(), contentType: noProduct.contentType, headers: owner.auth)
        let notImage = MultipartForm.g0Post(["product_id": product], images: [Array("not an image".utf8)])
        try await probe.expect(
            400, "POST", "/post", body: notImage.finished(), contentType: notImage.contentType, headers: owner.auth)
        let six = MultipartForm.g0Post(["product_id": product], images: Array(repeating: TestImages.png, count: 6))
        try await probe.expect(
            400, "POST", "/post", body: six.finished(), contentType: six.contentType, headers: owner.auth)
        try await probe.expect(400, "POST", "/post", json: #"{"product_id":"\#(product)"}"#, headers: owner.auth)
        let created = try await probe.expect(
            200, "POST", "/post", body: form.finished(), contentType: form.contentType, headers: owner.auth)
        let post = try created.json
        #expect(post.keys == Self.postKeys.union(["title", "content", "content1"]))
        #expect((post["creator"] as? [String: Any]).map { Set($0.keys) } == ["_id", "nick"])
        #expect(post["comments"] as? [Any] != nil && post["likes"] as? [String] == [])
        let postId = try #require(post.string("_id"))
        let images = try #require(post["image"] as? [String])
        #expect(images.count == 2 && Set(images).count == 2 && images.allSatisfy { $0.hasPrefix("uploads/posts/") })

        // The images, the G0 way ({base}/{path}) and the G1 way: the same files.
        let download = try await probe.expect(200, "GET", "/\(images[0])", headers: owner.auth)
        #expect(download.body == TestImages.png)
        #expect(try await gateway.send("GET", "/v1/\(images[0])", headers: other.auth).body == TestImages.png)
        try await probe.expect(401, "GET", "/\(images[0])")
        try await probe.expect(419, "GET", "/\(images[0])", headers: ["Authorization": expired])
        try await probe.expect(420, "GET", "/\(images[0])", headers: owner.auth, withKey: false)
        try await probe.expect(
            410, "GET", "/uploads/posts/\(String(repeating: "0", count: 40)).png", headers: owner.auth)
        try await probe.expect(444, "GET", "/uploads/posts/not-a-name.png", headers: owner.auth)

        // G1 sees the same post, and a G1 post shows up in the G0 feed.
        let g1 = try await gateway.send("GET", "/v1/posts/\(postId)", headers: other.auth).json
        #expect(g1["files"] as? [String] == images && g1.string("createdAt") == post.string("time"))
        let g1Created = try await gateway.send(
            "POST", "/v1/posts", json: #"{"content":"G1 글","product_id":"\#(product)"}"#, headers: other.auth)
        let g1Id = try #require(try g1Created.json.string("post_id"))

        // Reads.
        let first = try await probe.expect(200, "GET", "/post?next=&limit=1&product_id=\(product)", headers: owner.auth)
        #expect(try first.json.keys == ["data", "next_cursor"])
        #expect(items(first).compactMap { $0["_id"] as? String } == [g1Id])
        let cursor = try #require(try first.json.string("next_cursor"))
        let rest = try await probe.expect(
            200, "GET", "/post?next=\(cursor)&limit=5&product_id=\(product)", headers: owner.auth)
        #expect(items(rest).compactMap { $0["_id"] as? String } == [postId])
        #expect(try rest.json.string("next_cursor") == "0")
        let pastEnd = try await probe.expect(200, "GET", "/post?next=0", headers: owner.auth)
        #expect(items(pastEnd).isEmpty)
        #expect(try pastEnd.json.string("next_cursor") == "0")
        try await probe.expect(400, "GET", "/post?limit=abc", headers: owner.auth)
        try await probe.expect(401, "GET", "/post")
        try await probe.expect(200, "GET", "/post/\(postId)", headers: other.auth)
        try await probe.expect(410, "GET", "/post/\(Self.unknownId)", headers: other.auth)
        let byUser = try await probe.expect(200, "GET", "/post/user/\(owner.userId)?next=&limit=5", headers: other.auth)
        #expect(items(byUser).compactMap { $0["_id"] as? String } == [postId])
        let encodedTag = tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? tag
        let tagged = try await probe.expect(
            200, "GET", "/post/hashtag?hashTag=\(encodedTag)&next=&limit=5&product_id=\(product)", headers: other.auth)
        #expect(items(tagged).compactMap { $0["_id"] as? String } == [postId])
        try await probe.expect(400, "GET", "/post/hashtag", headers: other.auth)

        // Edit: only the parts sent change; `file` parts replace the images; owner only; gone → 410.
        let content2 = MultipartForm.g0Post(["content2": "두번째"])
        let edited = try await probe.expect(
            200, "PUT", "/post/\(postId)", body: content2.finished(), contentType: content2.contentType,
            headers: owner.auth)
        #expect(
            try edited.json.string("content2") == "두번째" && edited.json.string("content1") == "익명"
                && edited.json.string("title") == "제목")
        #expect(try edited.json["image"] as? [String] == images)
        let oneImage = MultipartForm.g0Post(["title": "새 제목"], images: [TestImages.png])
        let replaced = try await probe.expect(
            200, "PUT", "/post/\(postId)", body: oneImage.finished(), contentType: oneImage.contentType,
            headers: owner.auth)
        let newImages = try #require(try replaced.json["image"] as? [String])
        #expect(newImages.count == 1 && !images.contains(newImages[0]))
        try await probe.expect(
            445, "PUT", "/post/\(postId)", body: content2.finished(), contentType: content2.contentType,
            headers: other.auth)
        try await probe.expect(
            410, "PUT", "/post/\(Self.unknownId)", body: content2.finished(), contentType: content2.contentType,
            headers: owner.auth)
        let tooLong = MultipartForm.g0Post(["title": String(repeating: "가", count: 10_001)])
        try await probe.expect(
            400, "PUT", "/post/\(postId)", body: tooLong.finished(), contentType: tooLong.contentType,
            headers: owner.auth)

        // Like: a toggle without a body.
        let on = try await probe.expect(200, "POST", "/post/like/\(postId)", headers: other.auth)
        #expect(try on.json.keys == ["like_status"] && on.json.bool("like_status") == true)
        let liked = try await probe.expect(200, "GET", "/post/like/me?next=&limit=5", headers: other.auth)
        #expect(items(liked).compactMap { $0["_id"] as? String } == [postId])
        #expect(items(liked).first?["likes"] as? [String] == [other.userId])
        let off = try await probe.expect(200, "POST", "/post/like/\(postId)", headers: other.auth)
        #expect(try off.json.bool("like_status") == false)
        try await probe.expect(410, "POST", "/post/like/\(Self.unknownId)", headers: other.auth)
        #expect(items(try await probe.expect(200, "GET", "/post/like/me", headers: other.auth)).isEmpty)

        // Comments, singular paths.
        let comment = try await probe.expect(
            200, "POST", "/post/\(postId)/comment", json: #"{"content":"좋아요"}"#, headers: other.auth)
        #expect(try comment.json.keys == ["_id", "content", "time", "creator"])
        let commentId = try #require(try comment.json.string("_id"))
        try await probe.expect(400, "POST", "/post/\(postId)/comment", json: #"{"content":"   "}"#, headers: other.auth)
        try await probe.expect(
            410, "POST", "/post/\(Self.unknownId)/comment", json: #"{"content":"x"}"#, headers: other.auth)
        let withComment = try await probe.expect(200, "GET", "/post/\(postId)", headers: owner.auth)
        #expect(
            (try withComment.json["comments"] as? [[String: Any]])?.map { Set($0.keys) } == [
                ["_id", "content", "time", "creator"]
            ])
        let commentPath = "/post/\(postId)/comment/\(commentId)"
        let changed = try await probe.expect(
            200, "PUT", commentPath, json: #"{"content":"정말 좋아요"}"#, headers: other.auth)
        #expect(
            try changed.json.string("content") == "정말 좋아요" && changed.json.string("time") == comment.json.string("time")
        )
        try await probe.expect(400, "PUT", commentPath, json: #"{"content":""}"#, headers: other.auth)
        try await probe.expect(445, "PUT", commentPath, json: #"{"content":"x"}"#, headers: owner.auth)
        try await probe.expect(
            410, "PUT", "/post/\(postId)/comment/\(Self.unknownId)", json: #"{"content":"x"}"#, headers: other.auth)
        try await probe.expect(445, "DELETE", commentPath, headers: owner.auth)
        let removed = try await probe.expect(200, "DELETE", commentPath, headers: other.auth)
        #expect(try removed.json.string("postID") == postId && removed.json.string("commentID") == commentId)
        try await probe.expect(410, "DELETE", commentPath, headers: other.auth)

        // Delete: {_id}.
        try await probe.expect(445, "DELETE", "/post/\(postId)", headers: other.auth)
        let deleted = try await probe.expect(200, "DELETE", "/post/\(postId)", headers: owner.auth)
        #expect(try deleted.json.keys == ["_id"] && deleted.json.string("_id") == postId)
        try await probe.expect(410, "DELETE", "/post/\(postId)", headers: owner.auth)
        #expect(try await gateway.send("GET", "/v1/posts/\(postId)", headers: other.auth).status == 410)

        probe.expectAnswered(Self.contentCalls)
    }

    // MARK: Profiles and follows

    @Test func socialRoutes() async throws {
        let probe = try probe()
        let alice = try await signUp(probe, "g0s")
        let bob = try await signUp(probe, "g0s")
        try await eventually("the social service knows both users") {
            let mine = try await probe.poll("GET", "/profile/me", headers: alice.auth).status
            let theirs = try await probe.poll("GET", "/profile/\(bob.userId)", headers: alice.auth).status
            return mine == 200 && theirs == 200
        }
        try await probe.expect(401, "GET", "/profile/me")
        try await probe.expect(410, "GET", "/profile/\(Self.unknownId)", headers: alice.auth)

        let follow = try await probe.expect(200, "POST", "/follow/\(bob.userId)", headers: alice.auth)
        #expect(try follow.json.keys == ["user", "following", "following_status"])
        #expect(try follow.json.string("user") == alice.userId && follow.json.string("following") == bob.userId)
        #expect(try follow.json.bool("following_status") == true)
        try await probe.expect(409, "POST", "/follow/\(bob.userId)", headers: alice.auth)
        try await probe.expect(400, "POST", "/follow/\(alice.userId)", headers: alice.auth)
        try await probe.expect(410, "POST", "/follow/\(Self.unknownId)", headers: alice.auth)

        let theirs = try await probe.expect(200, "GET", "/profile/\(bob.userId)", headers: alice.auth)
        #expect(try theirs.json.keys == ["posts", "followers", "following", "_id", "nick"])
        #expect((try theirs.json["followers"] as? [[String: Any]])?.map { $0["_id"] as? String } == [alice.userId])
        #expect((try theirs.json["followers"] as? [[String: Any]])?.map { Set($0.keys) } == [["_id", "nick"]])
        let mine = try await probe.expect(200, "GET", "/profile/me", headers: alice.auth)
        #expect(try mine.json.keys == ["posts", "followers", "following", "_id", "email", "nick"])
        #expect(try mine.json.string("email") == alice.email)

        let unfollow = try await probe.expect(200, "DELETE", "/follow/\(bob.userId)", headers: alice.auth)
        #expect(try unfollow.json.bool("following_status") == false)
        try await probe.expect(410, "DELETE", "/follow/\(bob.userId)", headers: alice.auth)

        // Profile edit: the same multipart fields as G1 (nick, phoneNum, birthDay, profile).
        var form = MultipartForm()
        form.field("nick", alice.nick + "x")
        form.field("phoneNum", "01099998888")
        form.file("profile", filename: "me", mimeType: "image/png", bytes: TestImages.png)
        let updated = try await probe.expect(
            200, "PUT", "/profile/me", body: form.finished(), contentType: form.contentType, headers: alice.auth)
        #expect(try updated.json.string("nick") == alice.nick + "x" && updated.json.string("phoneNum") == "01099998888")
        let profileImage = try #require(try updated.json.string("profile"))
        #expect(profileImage.hasPrefix("uploads/profiles/"))
        var spaced = MultipartForm()
        spaced.field("nick", "a b")
        try await probe.expect(
            402, "PUT", "/profile/me", body: spaced.finished(), contentType: spaced.contentType, headers: alice.auth)
        var taken = MultipartForm()
        taken.field("nick", bob.nick)
        try await probe.expect(
            409, "PUT", "/profile/me", body: taken.finished(), contentType: taken.contentType, headers: alice.auth)
        try await probe.expect(400, "PUT", "/profile/me", json: #"{"nick":"json"}"#, headers: alice.auth)

        probe.expectAnswered(Self.socialCalls)
    }

    // MARK: Helpers

    /// `POST /join` then `POST /login`, the G0 way (both validated against the G0 document).
    func signUp(_ probe: ConformanceProbe, _ prefix: String) async throws -> ConformanceProbe.Account {
        let nick = TestEnvironment.unique(prefix)
        let email = "\(nick)@example.com"
        try await probe.expect(
            200, "POST", "/join", json: #"{"email":"\#(email)","password":"password123","nick":"\#(nick)"}"#)
        let login = try await probe.expect(
            200, "POST", "/login", json: #"{"email":"\#(email)","password":"password123"}"#)
        return ConformanceProbe.Account(
            userId: try #require(try login.json.string("_id")), email: email, nick: nick,
            token: try #require(try login.json.string("token")),
            refresh: try #require(try login.json.string("refreshToken")))
    }
}
