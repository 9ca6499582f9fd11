import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// `docs/api/openapi.json` against the running system: every documented operation is called through the gateway
/// with its success and its main errors, and every reply must match the document (`ConformanceProbe` records
/// a violation as a test issue: an undocumented path, method or status, a missing or extra key, a wrong type).
/// Plus: the gateway serves the repository's file, and the document covers every route of routes.conf and of the
/// services' routers (and nothing else).
@Suite("OpenAPI conformance through the gateway")
struct OpenAPIConformanceTests {
    static let png = TestImages.png
    static let unknownId = "000000000000000000000000"

    // What each journey must have seen, by operationId. Together they name every documented operation
    // (`everyDocumentedOperationIsExercised`).
    static let authCalls: [String: Set<Int>] = [
        "validateEmail": [200, 400, 409, 420], "join": [200, 400, 402, 409, 420], "login": [200, 400, 401, 420],
        "refresh": [200, 401, 409, 418, 420], "logout": [200, 401, 419, 420], "withdraw": [200, 401, 419, 420],
        "jwks": [200],
    ]
    static let contentCalls: [String: Set<Int>] = [
        "uploadFiles": [200, 400, 401, 420], "downloadFile": [200, 206, 304, 401, 410, 416, 419, 420, 444],
        "createPost": [200, 400, 401, 419, 420], "listPosts": [200, 400, 401], "getPost": [200, 410],
        "updatePost": [200, 400, 410, 445], "deletePost": [200, 410, 445], "listUserPosts": [200],
        "listHashtagPosts": [200, 400], "like": [200, 400, 410], "like2": [200, 400, 410], "listLiked": [200],
        "listLiked2": [200],
        "listFollowingFeed": [200], "createComment": [200, 400, 410], "updateComment": [200, 400, 410, 445],
        "deleteComment": [200, 410, 445],
    ]
    static let socialCalls: [String: Set<Int>] = [
        "follow": [200, 400, 409, 410], "unfollow": [200, 410], "getMyProfile": [200, 401],
        "updateMyProfile": [200, 400, 402, 409],
        "randomNick": [200], "searchUsers": [200, 400, 420], "getProfile": [200, 410], "rankPosts": [200, 400, 419],
        "rankUsers": [200, 400], "rankHashtags": [200, 400],
    ]
    static let marketCalls: [String: Set<Int>] = [
        "validatePayment": [200, 400, 401, 409, 410, 419, 420, 429], "listPayments": [200],
        "paymentWebhook": [200, 400, 503],
    ]
    static let chatCalls: [String: Set<Int>] = [
        "openChat": [200, 400, 401, 410, 419, 420], "listChats": [200, 401],
        "listChatMessages": [200, 400, 410, 445], "sendChatMessage": [200, 400, 410, 445],
        "uploadChatFiles": [200, 400, 410, 445],
    ]
    static let metaCalls: [String: Set<Int>] = ["openapi": [200]]
    static let federationCalls: [String: Set<Int>] = [
        "loginFirebase": [200, 400, 401, 420], "loginApple": [200, 400, 401, 420],
        "loginKakao": [200, 400, 401, 420, 503],
    ]

    @Test func everyDocumentedOperationIsExercised() throws {
        let validator = try OpenAPIValidator.repositoryDocument()
        let exercised = [
            Self.authCalls, Self.contentCalls, Self.socialCalls, Self.marketCalls, Self.metaCalls, Self.federationCalls,
            Self.chatCalls,
        ]
        .reduce(into: [String: Set<Int>]()) { $0.merge($1) { $0.union($1) } }
        #expect(Set(exercised.keys) == Set(validator.operations.map(\.operationId)))
        for operation in validator.operations {
            for status in exercised[operation.operationId] ?? [] {
                #expect(
                    operation.statuses.contains("\(status)"),
                    "\(operation) is exercised for \(status), which it does not document")
            }
        }
    }

    // MARK: Auth

    @Test func authOperations() async throws {
        let probe = try ConformanceProbe()
        let nick = TestEnvironment.unique("oaa")
        let email = "\(nick)@example.com"
        let join =
            #"{"email":"\#(email)","password":"password123","nick":"\#(nick)","phoneNum":"01012345678","birthDay":"19990101"}"#

        try await probe.expect(200, "POST", "/v1/validation/email", json: #"{"email":"\#(email)"}"#)
        try await probe.expect(400, "POST", "/v1/validation/email", json: #"{"email":"not-an-address"}"#)
        try await probe.expect(420, "POST", "/v1/validation/email", json: #"{"email":"\#(email)"}"#, withKey: false)
        try await probe.expect(
            400, "POST", "/v1/users/join", json: #"{"email":"nope","password":"password123","nick":"\#(nick)"}"#)
        try await probe.expect(400, "POST", "/v1/users/join", json: #"{"email":"\#(email)","nick":"\#(nick)"}"#)
        try await probe.expect(
            402, "POST", "/v1/users/join", json: #"{"email":"\#(email)","password":"password123","nick":"a b"}"#)
        try await probe.expect(420, "POST", "/v1/users/join", json: join, withKey: false)
        try await probe.expect(200, "POST", "/v1/users/join", json: join)
        try await probe.expect(409, "POST", "/v1/users/join", json: join)
        try await probe.expect(409, "POST", "/v1/validation/email", json: #"{"email":"\#(email)"}"#)

        try await probe.expect(400, "POST", "/v1/users/login", json: #"{"email":"","password":""}"#)
        try await probe.expect(
            401, "POST", "/v1/users/login", json: #"{"email":"\#(email)","password":"wrong-password"}"#)
        try await probe.expect(
            420, "POST", "/v1/users/login", json: #"{"email":"\#(email)","password":"password123"}"#, withKey: false)
        let account = try await probe.logIn(email: email, nick: nick)
        try await probe.expect(200, "GET", "/.well-known/jwks.json", withKey: false)

        // Refresh: still valid 409, expired + refresh 200, unknown refresh 401, no key 420, refresh expired 418.
        let expired = try await ConformanceProbe.expiredToken(like: account.token)
        try await probe.expect(
            409, "GET", "/v1/auth/refresh", headers: ["Authorization": account.token, "Refresh": account.refresh])
        let renewed = try await probe.expect(
            200, "GET", "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": account.refresh])
        let fresh = try #require(try renewed.json.string("accessToken"))
        try await probe.expect(
            401, "GET", "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": "unknown"])
        try await probe.expect(
            420, "GET", "/v1/auth/refresh", headers: ["Authorization": expired, "Refresh": account.refresh],
            withKey: false)
        let second = try await probe.logIn(email: email, nick: nick)
        let secondExpired = try await ConformanceProbe.expiredToken(like: second.token)
        let secondSession = try await ConformanceProbe.sessionId(of: second.token)
        try await TestEnvironment.withDatabase { postgres in
            _ = try await postgres.query(
                "UPDATE auth.refresh_tokens SET expires_at = now() - interval '1 second' WHERE session_id = \(secondSession)",
                logger: TestEnvironment.logger)
        }
        try await probe.expect(
            418, "GET", "/v1/auth/refresh", headers: ["Authorization": secondExpired, "Refresh": second.refresh])

        // Logout and withdraw with their token errors.
        try await probe.expect(401, "POST", "/v1/users/logout")
        try await probe.expect(419, "POST", "/v1/users/logout", headers: ["Authorization": expired])
        try await probe.expect(420, "POST", "/v1/users/logout", headers: account.auth, withKey: false)
        let third = try await probe.logIn(email: email, nick: nick)
        try await probe.expect(200, "POST", "/v1/users/logout", headers: third.auth)
        try await probe.expect(419, "GET", "/v1/users/withdraw", headers: ["Authorization": expired])
        try await probe.expect(420, "GET", "/v1/users/withdraw", headers: ["Authorization": fresh], withKey: false)
        try await probe.expect(200, "GET", "/v1/users/withdraw", headers: ["Authorization": fresh])
        try await probe.expect(401, "GET", "/v1/users/withdraw", headers: ["Authorization": fresh])

        probe.expectAnswered(Self.authCalls)
    }

    // MARK: Federated sign-in (against the stack's identity-provider test server)

    @Test func federatedSignInOperations() async throws {
        let probe = try ConformanceProbe()
        let idp = GatewayClient(baseURL: URL(string: try TestEnvironment.identityProviderURL())!)
        func idToken(_ realm: String, _ claims: String) async throws -> String {
            let reply = try await idp.send("POST", "/__sandbox/id-tokens/\(realm)", json: claims)
            return try #require(try reply.json.string("idToken"), "\(reply.text)")
        }
        func kakaoToken() async throws -> String {
            let reply = try await idp.send("POST", "/__sandbox/kakao/tokens", json: "{}")
            return try #require(try reply.json.string("access_token"), "\(reply.text)")
        }

        let firebase = try await idToken(
            "firebase", #"{"sub":"\#(TestEnvironment.unique("oaf"))","phone_number":"+821055550000"}"#)
        try await probe.expect(
            420, "POST", "/v1/users/login/firebase", json: #"{"idToken":"\#(firebase)"}"#, withKey: false)
        try await probe.expect(400, "POST", "/v1/users/login/firebase", json: #"{"idToken":""}"#)
        let expired = try await idToken("firebase", #"{"sub":"x","expires_in":-600}"#)
        try await probe.expect(401, "POST", "/v1/users/login/firebase", json: #"{"idToken":"\#(expired)"}"#)
        try await probe.expect(200, "POST", "/v1/users/login/firebase", json: #"{"idToken":"\#(firebase)"}"#)

        let apple = try await idToken("apple", #"{"sub":"\#(TestEnvironment.unique("oaa"))"}"#)
        try await probe.expect(420, "POST", "/v1/users/login/apple", json: #"{"idToken":"\#(apple)"}"#, withKey: false)
        try await probe.expect(400, "POST", "/v1/users/login/apple", json: #"{"nick":"x"}"#)
        try await probe.expect(401, "POST", "/v1/users/login/apple", json: #"{"idToken":"\#(firebase)"}"#)
        try await probe.expect(
            200, "POST", "/v1/users/login/apple",
            json: #"{"idToken":"\#(apple)","nick":"\#(TestEnvironment.unique("oaa"))"}"#)

        let kakao = try await kakaoToken()
        try await probe.expect(
            420, "POST", "/v1/users/login/kakao", json: #"{"oauthToken":"\#(kakao)"}"#, withKey: false)
        try await probe.expect(400, "POST", "/v1/users/login/kakao", json: #"{"oauthToken":""}"#)
        try await probe.expect(401, "POST", "/v1/users/login/kakao", json: #"{"oauthToken":"unknown-token"}"#)
        // Kakao answering 500 (once): 503, nothing created; then the same token signs in.
        let armed = try await idp.send(
            "POST", "/__sandbox/kakao/faults",
            json: #"{"kind":"error","status":500,"times":1,"access_token":"\#(kakao)"}"#)
        #expect(armed.status == 200, "\(armed.text)")
        try await probe.expect(503, "POST", "/v1/users/login/kakao", json: #"{"oauthToken":"\#(kakao)"}"#)
        try await probe.expect(200, "POST", "/v1/users/login/kakao", json: #"{"oauthToken":"\#(kakao)"}"#)

        probe.expectAnswered(Self.federationCalls)
    }

    // MARK: Posts, comments, likes, media

    @Test func contentOperations() async throws {
        let probe = try ConformanceProbe()
        let owner = try await probe.signUp("oac")
        let other = try await probe.signUp("oac")
        let expired = try await ConformanceProbe.expiredToken(like: owner.token)

        // Upload and download.
        var images = MultipartForm()
        images.file("files", filename: "photo", mimeType: "image/jpg", bytes: Self.png)
        let uploaded = try await probe.expect(
            200, "POST", "/v1/posts/files", body: images.finished(), contentType: images.contentType,
            headers: owner.auth)
        let file = try #require((try uploaded.json["files"] as? [String])?.first)
        var text = MultipartForm()
        text.file("files", filename: "notes.png", mimeType: "image/png", bytes: Array("not an image".utf8))
        try await probe.expect(
            400, "POST", "/v1/posts/files", body: text.finished(), contentType: text.contentType, headers: owner.auth)
        try await probe.expect(401, "POST", "/v1/posts/files", body: images.finished(), contentType: images.contentType)
        try await probe.expect(
            420, "POST", "/v1/posts/files", body: images.finished(), contentType: images.contentType,
            headers: owner.auth, withKey: false)
        let download = try await probe.expect(200, "GET", "/v1/\(file)", headers: owner.auth)
        #expect(download.body == Self.png)
        let etag = try #require(download.header("ETag"))
        try await probe.expect(304, "GET", "/v1/\(file)", headers: owner.auth.merging(["If-None-Match": etag]) { $1 })
        try await probe.expect(206, "GET", "/v1/\(file)", headers: owner.auth.merging(["Range": "bytes=0-7"]) { $1 })
        try await probe.expect(
            416, "GET", "/v1/\(file)", headers: owner.auth.merging(["Range": "bytes=100000-"]) { $1 })
        try await probe.expect(
            410, "GET", "/v1/uploads/posts/\(String(repeating: "0", count: 40)).png", headers: owner.auth)
        try await probe.expect(444, "GET", "/v1/uploads/posts/not-a-name.png", headers: owner.auth)
        try await probe.expect(401, "GET", "/v1/\(file)")
        try await probe.expect(419, "GET", "/v1/\(file)", headers: ["Authorization": expired])
        try await probe.expect(420, "GET", "/v1/\(file)", headers: owner.auth, withKey: false)

        // Create, read, list.
        let product = TestEnvironment.unique("oaProduct")
        let tag = "오에이\(TestEnvironment.unique(""))"
        let post =
            #"{"title":"t","content":"c #\#(tag)","content1":"c1","product_id":"\#(product)","files":["\#(file)"],"price":1000}"#
        try await probe.expect(400, "POST", "/v1/posts", json: #"{"title":"no product"}"#, headers: owner.auth)
        // Over nginx's body limit (30 MB): the contract's 400 {"message"}, not nginx's HTML 413.
        try await probe.expect(
            400, "POST", "/v1/posts", body: Data(count: 31 * 1024 * 1024), contentType: "application/json",
            headers: owner.auth)
        try await probe.expect(401, "POST", "/v1/posts", json: post)
        try await probe.expect(419, "POST", "/v1/posts", json: post, headers: ["Authorization": expired])
        try await probe.expect(420, "POST", "/v1/posts", json: post, headers: owner.auth, withKey: false)
        let created = try await probe.expect(200, "POST", "/v1/posts", json: post, headers: owner.auth)
        let postId = try #require(try created.json.string("post_id"))
        try await probe.expect(200, "POST", "/v1/posts", json: #"{"product_id":"\#(product)"}"#, headers: owner.auth)
        try await probe.expect(200, "GET", "/v1/posts?next=&limit=1&product_id=\(product)", headers: owner.auth)
        try await probe.expect(200, "GET", "/v1/posts?next=0", headers: owner.auth)
        try await probe.expect(400, "GET", "/v1/posts?limit=abc", headers: owner.auth)
        try await probe.expect(401, "GET", "/v1/posts")
        try await probe.expect(200, "GET", "/v1/posts/\(postId)", headers: other.auth)
        try await probe.expect(410, "GET", "/v1/posts/\(Self.unknownId)", headers: other.auth)
        try await probe.expect(200, "GET", "/v1/posts/users/\(owner.userId)?limit=1", headers: other.auth)
        let encodedTag = try #require(tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        try await probe.expect(
            200, "GET", "/v1/posts/hashtags?hashTag=\(encodedTag)&product_id=\(product)", headers: other.auth)
        try await probe.expect(400, "GET", "/v1/posts/hashtags", headers: other.auth)

        // Edit.
        try await probe.expect(
            200, "PUT", "/v1/posts/\(postId)", json: #"{"content":"edited #\#(tag)","content2":"c2","price":null}"#,
            headers: owner.auth)
        try await probe.expect(445, "PUT", "/v1/posts/\(postId)", json: #"{"title":"mine now"}"#, headers: other.auth)
        try await probe.expect(410, "PUT", "/v1/posts/\(Self.unknownId)", json: #"{"title":"x"}"#, headers: owner.auth)
        try await probe.expect(400, "PUT", "/v1/posts/\(postId)", json: #"{"title":5}"#, headers: owner.auth)

        // Likes (both kinds) and the lists of my likes; the following feed.
        for kind in ["like", "like-2"] {
            try await probe.expect(
                200, "POST", "/v1/posts/\(postId)/\(kind)", json: #"{"like_status":true}"#, headers: other.auth)
            try await probe.expect(
                400, "POST", "/v1/posts/\(postId)/\(kind)", json: #"{"like_status":"yes"}"#, headers: other.auth)
            try await probe.expect(
                410, "POST", "/v1/posts/\(Self.unknownId)/\(kind)", json: #"{"like_status":true}"#, headers: other.auth)
        }
        try await probe.expect(200, "GET", "/v1/posts/likes/me?next=&limit=5", headers: other.auth)
        try await probe.expect(200, "GET", "/v1/posts/likes-2/me?next=&limit=5", headers: other.auth)
        try await probe.expect(200, "GET", "/v1/posts/feed/following", headers: other.auth)

        // Comments.
        let comment = try await probe.expect(
            200, "POST", "/v1/posts/\(postId)/comments", json: #"{"content":"좋아요"}"#, headers: other.auth)
        let commentId = try #require(try comment.json.string("comment_id"))
        try await probe.expect(
            400, "POST", "/v1/posts/\(postId)/comments", json: #"{"content":"   "}"#, headers: other.auth)
        try await probe.expect(
            410, "POST", "/v1/posts/\(Self.unknownId)/comments", json: #"{"content":"x"}"#, headers: other.auth)
        try await probe.expect(200, "GET", "/v1/posts/\(postId)", headers: owner.auth)  // now with a comment and likes
        let commentPath = "/v1/posts/\(postId)/comments/\(commentId)"
        try await probe.expect(200, "PUT", commentPath, json: #"{"content":"정말 좋아요"}"#, headers: other.auth)
        try await probe.expect(445, "PUT", commentPath, json: #"{"content":"not mine"}"#, headers: owner.auth)
        try await probe.expect(400, "PUT", commentPath, json: #"{"content":""}"#, headers: other.auth)
        try await probe.expect(
            410, "PUT", "/v1/posts/\(postId)/comments/\(Self.unknownId)", json: #"{"content":"x"}"#, headers: other.auth
        )
        try await probe.expect(445, "DELETE", commentPath, headers: owner.auth)
        try await probe.expect(200, "DELETE", commentPath, headers: other.auth)
        try await probe.expect(410, "DELETE", commentPath, headers: other.auth)

        // Delete.
        try await probe.expect(445, "DELETE", "/v1/posts/\(postId)", headers: other.auth)
        try await probe.expect(200, "DELETE", "/v1/posts/\(postId)", headers: owner.auth)
        try await probe.expect(410, "DELETE", "/v1/posts/\(postId)", headers: owner.auth)

        probe.expectAnswered(Self.contentCalls)
    }

    // MARK: Social graph and profiles

    @Test func socialOperations() async throws {
        let probe = try ConformanceProbe()
        let alice = try await probe.signUp("oas")
        let bob = try await probe.signUp("oas")
        let expired = try await ConformanceProbe.expiredToken(like: alice.token)

        // The social service learns of new accounts from events: until then their profiles are 410 (documented).
        try await eventually("social knows both accounts") {
            let mine = try await probe.poll("GET", "/v1/users/me/profile", headers: alice.auth).status
            let theirs = try await probe.poll("GET", "/v1/users/\(bob.userId)/profile", headers: alice.auth).status
            return mine == 200 && theirs == 200
        }
        try await probe.expect(401, "GET", "/v1/users/me/profile")
        try await probe.expect(410, "GET", "/v1/users/\(Self.unknownId)/profile", headers: alice.auth)

        try await probe.expect(200, "POST", "/v1/follow/\(bob.userId)", headers: alice.auth)
        try await probe.expect(409, "POST", "/v1/follow/\(bob.userId)", headers: alice.auth)
        try await probe.expect(400, "POST", "/v1/follow/\(alice.userId)", headers: alice.auth)
        try await probe.expect(410, "POST", "/v1/follow/\(Self.unknownId)", headers: alice.auth)
        // with a follower now
        try await probe.expect(200, "GET", "/v1/users/\(bob.userId)/profile", headers: alice.auth)
        try await probe.expect(200, "GET", "/v1/users/me/profile", headers: alice.auth)
        try await probe.expect(200, "DELETE", "/v1/follow/\(bob.userId)", headers: alice.auth)
        try await probe.expect(410, "DELETE", "/v1/follow/\(bob.userId)", headers: alice.auth)

        let term = try #require(String(bob.nick.suffix(8)).addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        try await probe.expect(200, "GET", "/v1/users/search?nick=\(term)", headers: alice.auth)
        try await probe.expect(400, "GET", "/v1/users/search?nick=", headers: alice.auth)
        try await probe.expect(420, "GET", "/v1/users/search?nick=\(term)", headers: alice.auth, withKey: false)

        // Profile edit (multipart, like the apps): nick, fields and an image; then its errors.
        var form = MultipartForm()
        form.field("nick", alice.nick + "x")
        form.field("phoneNum", "01099998888")
        form.field("birthDay", "")
        form.file("profile", filename: "me", mimeType: "image/png", bytes: Self.png)
        try await probe.expect(
            200, "PUT", "/v1/users/me/profile", body: form.finished(), contentType: form.contentType,
            headers: alice.auth)
        var spaced = MultipartForm()
        spaced.field("nick", "a b")
        try await probe.expect(
            402, "PUT", "/v1/users/me/profile", body: spaced.finished(), contentType: spaced.contentType,
            headers: alice.auth)
        var taken = MultipartForm()
        taken.field("nick", bob.nick)
        try await probe.expect(
            409, "PUT", "/v1/users/me/profile", body: taken.finished(), contentType: taken.contentType,
            headers: alice.auth)
        try await probe.expect(400, "PUT", "/v1/users/me/profile", json: #"{"nick":"json"}"#, headers: alice.auth)
        var large = MultipartForm()  // over the gateway's 6 MB for this route: 400 {"message"}, not nginx's 413 page
        large.file(
            "profile", filename: "big", mimeType: "image/png",
            bytes: Self.png + [UInt8](repeating: 0, count: 7 * 1024 * 1024))
        try await probe.expect(
            400, "PUT", "/v1/users/me/profile", body: large.finished(), contentType: large.contentType,
            headers: alice.auth)
        try await probe.expect(200, "POST", "/v1/users/me/nick/random", headers: bob.auth)

        for kind in ["posts", "users", "hashtags"] {
            try await probe.expect(200, "GET", "/v1/rankings/\(kind)?window=7d&limit=5", headers: alice.auth)
            try await probe.expect(400, "GET", "/v1/rankings/\(kind)?window=2d", headers: alice.auth)
        }
        try await probe.expect(419, "GET", "/v1/rankings/posts", headers: ["Authorization": expired])

        probe.expectAnswered(Self.socialCalls)
    }

    // MARK: Payments

    @Test func marketOperations() async throws {
        let probe = try ConformanceProbe()
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let seller = try await probe.signUp("oam")
        let buyer = try await probe.signUp("oam")
        let expired = try await ConformanceProbe.expiredToken(like: buyer.token)
        let created = try await probe.expect(
            200, "POST", "/v1/posts", json: #"{"title":"책","product_id":"snapBook_market","price":3000}"#,
            headers: seller.auth)
        let postId = try #require(try created.json.string("post_id"))

        // Unknown post: 410. The market learns of the post from events; then an imp_uid PortOne does not know is 400.
        try await probe.expect(
            410, "POST", "/v1/payments/validation",
            json: #"{"imp_uid":"imp_\#(TestEnvironment.unique(""))","post_id":"\#(Self.unknownId)"}"#,
            headers: buyer.auth)
        let probeBody = #"{"imp_uid":"imp_probe_\#(TestEnvironment.unique(""))","post_id":"\#(postId)"}"#
        try await eventually("the market knows the post") {
            try await probe.poll("POST", "/v1/payments/validation", json: probeBody, headers: buyer.auth).status == 400
        }
        try await probe.expect(
            400, "POST", "/v1/payments/validation", json: #"{"imp_uid":"bad uid!","post_id":"\#(postId)"}"#,
            headers: buyer.auth)

        let impUid = try await pay(sandbox, amount: 3000)
        let validation = #"{"imp_uid":"\#(impUid)","post_id":"\#(postId)","productName":"책","price":3000}"#
        try await probe.expect(401, "POST", "/v1/payments/validation", json: validation)
        try await probe.expect(
            419, "POST", "/v1/payments/validation", json: validation, headers: ["Authorization": expired])
        try await probe.expect(
            420, "POST", "/v1/payments/validation", json: validation, headers: buyer.auth, withKey: false)
        try await probe.expect(200, "POST", "/v1/payments/validation", json: validation, headers: buyer.auth)
        try await probe.expect(409, "POST", "/v1/payments/validation", json: validation, headers: buyer.auth)
        try await probe.expect(200, "GET", "/v1/payments/me", headers: buyer.auth)

        // PortOne failing every lookup of a payment: the app gets 429, PortOne's webhook 503.
        let unreachable = try await pay(sandbox, amount: 3000)
        try await fail(sandbox, lookupsOf: unreachable, times: 3)
        try await probe.expect(
            429, "POST", "/v1/payments/validation", json: #"{"imp_uid":"\#(unreachable)","post_id":"\#(postId)"}"#,
            headers: buyer.auth)
        let unannounced = try await pay(sandbox, amount: 3000)
        try await fail(sandbox, lookupsOf: unannounced, times: 3)
        try await probe.expect(
            503, "POST", "/v1/payments/webhook", json: #"{"imp_uid":"\#(unannounced)","status":"paid"}"#, withKey: false
        )

        // PortOne's webhook for the validated payment (no SesacKey): handled, changes nothing; without imp_uid 400.
        try await probe.expect(
            200, "POST", "/v1/payments/webhook", json: #"{"imp_uid":"\#(impUid)","status":"paid"}"#, withKey: false)
        try await probe.expect(400, "POST", "/v1/payments/webhook", json: #"{"status":"paid"}"#, withKey: false)

        probe.expectAnswered(Self.marketCalls)
    }

    @Test func chatOperations() async throws {
        let probe = try ConformanceProbe()
        let alice = try await probe.signUp("oac")
        let bob = try await probe.signUp("oac")
        let carol = try await probe.signUp("oac")
        let expired = try await ConformanceProbe.expiredToken(like: alice.token)
        let open = #"{"opponent_id":"\#(bob.userId)"}"#

        try await probe.expect(401, "POST", "/v1/chats", json: open)
        try await probe.expect(419, "POST", "/v1/chats", json: open, headers: ["Authorization": expired])
        try await probe.expect(420, "POST", "/v1/chats", json: open, headers: alice.auth, withKey: false)
        try await probe.expect(400, "POST", "/v1/chats", json: "{}", headers: alice.auth)
        try await probe.expect(
            410, "POST", "/v1/chats", json: #"{"opponent_id":"\#(Self.unknownId)"}"#, headers: alice.auth)
        let opened = try await probe.expect(200, "POST", "/v1/chats", json: open, headers: alice.auth)
        let room = try #require(try opened.json.string("room_id"))

        try await probe.expect(200, "POST", "/v1/chats/\(room)", json: #"{"content":"안녕하세요"}"#, headers: bob.auth)
        try await probe.expect(400, "POST", "/v1/chats/\(room)", json: #"{"content":""}"#, headers: bob.auth)
        try await probe.expect(445, "POST", "/v1/chats/\(room)", json: #"{"content":"?"}"#, headers: carol.auth)
        try await probe.expect(
            410, "POST", "/v1/chats/\(Self.unknownId)", json: #"{"content":"?"}"#, headers: carol.auth)
        try await probe.expect(200, "GET", "/v1/chats/\(room)", headers: alice.auth)
        try await probe.expect(
            200, "GET", "/v1/chats/\(room)?cursor_date=1970-01-01T09:00:00.000%2B09:00", headers: alice.auth)
        try await probe.expect(400, "GET", "/v1/chats/\(room)?cursor_date=soon", headers: alice.auth)
        try await probe.expect(445, "GET", "/v1/chats/\(room)", headers: carol.auth)
        try await probe.expect(410, "GET", "/v1/chats/\(Self.unknownId)", headers: alice.auth)
        try await probe.expect(200, "GET", "/v1/chats", headers: alice.auth)
        try await probe.expect(401, "GET", "/v1/chats")

        // A room's upload (multipart `files`, like KeyCat), then a message carrying the stored path.
        var form = MultipartForm()
        form.file("files", filename: "Keycat.jpg", mimeType: "image/png", bytes: Self.png)
        let uploaded = try await probe.expect(
            200, "POST", "/v1/chats/\(room)/files", body: form.finished(), contentType: form.contentType,
            headers: bob.auth)
        let path = try #require((try uploaded.decode(APIModels.UploadedFiles.self)).files.first)
        #expect(path.hasPrefix("uploads/chats/"))
        try await probe.expect(
            200, "POST", "/v1/chats/\(room)", json: #"{"content":"","files":["\#(path)"]}"#, headers: bob.auth)
        try await probe.expect(200, "GET", "/v1/\(path)", headers: alice.auth)
        var empty = MultipartForm()
        empty.field("note", "no file")
        try await probe.expect(
            400, "POST", "/v1/chats/\(room)/files", body: empty.finished(), contentType: empty.contentType,
            headers: bob.auth)
        // Not a photo, with megabytes behind it: media answers 400 at its first bytes while chat is still passing the
        // rest on (decision 0046), and the next upload is stored.
        var notAPhoto = MultipartForm()
        notAPhoto.file(
            "files", filename: "notes.txt", mimeType: "text/plain", bytes: [UInt8](repeating: 0x41, count: 3_000_000))
        try await probe.expect(
            400, "POST", "/v1/chats/\(room)/files", body: notAPhoto.finished(), contentType: notAPhoto.contentType,
            headers: bob.auth)
        try await probe.expect(
            200, "POST", "/v1/chats/\(room)/files", body: form.finished(), contentType: form.contentType,
            headers: bob.auth)
        try await probe.expect(
            445, "POST", "/v1/chats/\(room)/files", body: form.finished(), contentType: form.contentType,
            headers: carol.auth)
        try await probe.expect(
            410, "POST", "/v1/chats/\(Self.unknownId)/files", body: form.finished(), contentType: form.contentType,
            headers: carol.auth)

        probe.expectAnswered(Self.chatCalls)
    }

    /// A payment at the PortOne test server, as the iamport SDK leaves it; its imp_uid.
    func pay(_ sandbox: GatewayClient, amount: Int) async throws -> String {
        let merchantUid = "ios_\(try TestEnvironment.apiKey())_\(TestEnvironment.unique(""))"
        let created = try await sandbox.send(
            "POST", "/__sandbox/payments", json: #"{"merchant_uid":"\#(merchantUid)","amount":\#(amount)}"#)
        #expect(created.status == 200, "\(created.text)")
        return try #require(try created.json.string("imp_uid"))
    }

    /// The next `times` lookups of `impUid` at PortOne answer 503 (the market's attempts per call: 3).
    func fail(_ sandbox: GatewayClient, lookupsOf impUid: String, times: Int) async throws {
        let armed = try await sandbox.send(
            "POST", "/__sandbox/faults",
            json: #"{"target":"lookup","imp_uid":"\#(impUid)","kind":"error","status":503,"times":\#(times)}"#)
        #expect(armed.status == 200, "\(armed.text)")
    }

    // MARK: The document itself

    @Test func gatewayServesTheRepositoryDocumentWithoutSesacKey() async throws {
        let probe = try ConformanceProbe()
        let served = try await probe.expect(200, "GET", "/v1/openapi.json", withKey: false)
        #expect(served.body == Array(try Data(contentsOf: OpenAPIValidator.repositoryDocumentURL)))
        #expect(served.header("Content-Type")?.hasPrefix("application/json") == true)
        probe.expectAnswered(Self.metaCalls)
    }

    /// routes.conf ↔ documents ↔ the services' routers: every public location is documented, every documented
    /// path reaches (through nginx's location choice) the service whose router registers it, and every public
    /// route a router registers is documented. Three documents (decisions 0011, 0021): `openapi.json` holds the G1 API
    /// (`/v1/…`, plus `/.well-known/jwks.json`), `openapi-g0.json` the 2023 G0 API (no prefix), `openapi-g2.json` the
    /// G2 encoding of `/v1` routes (with `ProductId`) and the routes only G2 has; each holds only its own.
    @Test func documentCoversEveryRouteOfTheGatewayAndTheServices() throws {
        let validator = try OpenAPIValidator.repositoryDocument()
        let g0 = try OpenAPIValidator.repositoryG0Document()
        let g2 = try OpenAPIValidator.repositoryG2Document()
        let gateway = try GatewayRoutes.repository()
        let registered = try RegisteredRoute.scanRepository()
        let documented = validator.operations + g0.operations + g2.operations
        for operation in g2.operations {
            #expect(operation.path.template.hasPrefix("/v1/"), "\(operation) is in the G2 document but not under /v1")
        }
        for operation in validator.operations {
            #expect(
                operation.path.template.hasPrefix("/v1/") || operation.path.template.hasPrefix("/.well-known/"),
                "\(operation) is in the G1 document but not under /v1")
        }
        for operation in g0.operations {
            #expect(
                !operation.path.template.hasPrefix("/v1/") && !operation.path.template.hasPrefix("/.well-known/"),
                "\(operation) is in the G0 document but not a G0 path")
        }

        // Each gateway location that hands requests to a service (or serves a file) is documented.
        for location in gateway.locations where GatewayRoutes.isRoute(location) {
            switch location.kind {
            case .exact:
                #expect(documented.contains { $0.path.template == location.pattern }, "\(location) is not documented")
            case .prefix, .preferredPrefix:
                #expect(
                    documented.contains { $0.path.template.hasPrefix(location.pattern) },
                    "nothing under \(location) is documented")
            case .regex:
                let regex = try NSRegularExpression(pattern: location.pattern)
                #expect(
                    documented.contains { operation in
                        let path = operation.path.filled { _ in "x1" }
                        return regex.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil
                    }, "nothing matching \(location) is documented")
            }
        }

        // Each documented operation is a public route of the service nginx sends it to.
        for operation in documented {
            let path = operation.path.filled { _ in "x1" }
            let location = try #require(gateway.location(for: path), "no location for \(path)")
            #expect(GatewayRoutes.isRoute(location), "\(operation) reaches \(location), not a service route")
            if location.target == "file" { continue }  // served by nginx itself (the document)
            let served = registered.contains { route in
                route.service == location.target && route.method == operation.method
                    && (route.path == operation.path.template
                        || route.wildcardPrefix.map { operation.path.template.hasPrefix($0) } == true)
            }
            #expect(served, "\(operation) goes to \(location.target), whose router does not register it")
        }

        // Each route the routers register is documented.
        #expect(registered.count > 20, "the router scan found only \(registered)")
        // Socket.IO's transport endpoint (Engine.IO long-polling) is a protocol of its own, not described there.
        for route in registered where !route.path.hasPrefix("/socket.io") {
            let isDocumented = documented.contains { operation in
                operation.method == route.method
                    && (operation.path.template == route.path
                        || route.wildcardPrefix.map { operation.path.template.hasPrefix($0) } == true)
            }
            #expect(isDocumented, "\(route) is not documented")
        }
    }
}
