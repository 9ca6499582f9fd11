import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// Read-your-writes for the acting client across services (decision 0013): each test does one thing and looks at
/// it with its very next request, to another service, through the gateway — no `eventually`, no retries. A write
/// answers only once the projections the client can observe have applied its event.
@Suite("Read-your-writes through the gateway")
struct ReadYourWritesTests {
    let gateway: GatewayClient

    init() throws { gateway = try GatewayClient() }

    struct Account {
        let userId: String
        let nick: String
        let access: String
        let refresh: String
        var auth: [String: String] { ["Authorization": access] }
    }

    func signUp(_ nick: String = TestEnvironment.unique("ryw")) async throws -> Account {
        let email = "\(TestEnvironment.unique("ryw"))@example.com"
        let joined = try await gateway.send(
            "POST", "/v1/users/join", json: #"{"email":"\#(email)","password":"password123","nick":"\#(nick)"}"#)
        #expect(joined.status == 200, "\(joined.text)")
        let login = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"\#(email)","password":"password123"}"#)
        #expect(login.status == 200, "\(login.text)")
        let json = try login.json
        return Account(
            userId: try #require(json.string("user_id")), nick: nick,
            access: try #require(json.string("accessToken")), refresh: try #require(json.string("refreshToken")))
    }

    func post(_ account: Account, _ body: String) async throws -> APIModels.Post {
        let created = try await gateway.send("POST", "/v1/posts", json: body, headers: account.auth)
        #expect(created.status == 200, "\(created.text)")
        return try created.decode()
    }

    @Test func signUpThenProfileAtOnce() async throws {
        let me = try await signUp()
        let profile = try await gateway.send("GET", "/v1/users/me/profile", headers: me.auth)
        #expect(profile.status == 200, "\(profile.text)")
        #expect(try profile.json.string("nick") == me.nick)
        let g0 = try await gateway.send("GET", "/profile/me", headers: me.auth)
        #expect(g0.status == 200, "\(g0.text)")
    }

    @Test func firstFederatedSignInThenProfileAtOnce() async throws {
        let idp = GatewayClient(baseURL: URL(string: try TestEnvironment.identityProviderURL())!)
        let minted = try await idp.send(
            "POST", "/__sandbox/id-tokens/firebase", json: #"{"sub":"\#(TestEnvironment.unique("rywfb"))"}"#)
        let token = try #require(try minted.json.string("idToken"))
        let login = try await gateway.send("POST", "/v1/users/login/firebase", json: #"{"idToken":"\#(token)"}"#)
        #expect(login.status == 200, "\(login.text)")
        let access = try #require(try login.json.string("accessToken"))
        let profile = try await gateway.send("GET", "/v1/users/me/profile", headers: ["Authorization": access])
        #expect(profile.status == 200, "\(profile.text)")
        #expect(try profile.json.string("nick") == (try login.json.string("nick")))
    }

    @Test func createdPostNamesItsCreatorAndShowsOnTheProfile() async throws {
        let me = try await signUp()
        let post = try await post(me, #"{"title":"첫 글","content":"hello","product_id":"ryw_test"}"#)
        #expect(post.creator.nick == me.nick)
        let profile = try await gateway.send("GET", "/v1/users/me/profile", headers: me.auth)
        #expect(try profile.decode(APIModels.Profile.self).posts == [post.postId])
    }

    @Test func renameShowsOnMyPostsAndCommentsAtOnce() async throws {
        let me = try await signUp()
        let postId = try await post(me, #"{"title":"t","content":"c","product_id":"ryw_test"}"#).postId
        let comment = try await gateway.send(
            "POST", "/v1/posts/\(postId)/comments", json: #"{"content":"댓글"}"#, headers: me.auth)
        #expect(comment.status == 200, "\(comment.text)")

        let renamed = TestEnvironment.unique("새이름")
        var form = MultipartForm()
        form.field("nick", renamed)
        let edited = try await gateway.send(
            "PUT", "/v1/users/me/profile", body: form.finished(), contentType: form.contentType, headers: me.auth)
        #expect(edited.status == 200, "\(edited.text)")

        let read = try await gateway.send("GET", "/v1/posts/\(postId)", headers: me.auth).decode(APIModels.Post.self)
        #expect(read.creator.nick == renamed)
        #expect(read.comments.map(\.creator.nick) == [renamed])
        let search = try await gateway.send("GET", "/v1/users/search?nick=\(renamed)", headers: me.auth)
        #expect(try search.decode(APIModels.UserList.self).data.map(\.userId) == [me.userId])
    }

    @Test func followSomeoneWhoSignedUpInTheSameInstant() async throws {
        async let first = signUp()
        async let second = signUp()
        let (me, them) = try await (first, second)
        let followed = try await gateway.send("POST", "/v1/follow/\(them.userId)", headers: me.auth)
        #expect(followed.status == 200, "\(followed.text)")
        #expect(try followed.json.string("nick") == me.nick)
        #expect(try followed.json.string("opponent_nick") == them.nick)
        // Their post shows in my following feed on my next request.
        let theirs = try await post(them, #"{"title":"t","content":"c","product_id":"ryw_test"}"#).postId
        let feed = try await gateway.send("GET", "/v1/posts/feed/following?limit=10", headers: me.auth)
        #expect(try feed.decode(APIModels.PostPage.self).data.map(\.postId) == [theirs])
        let profile = try await gateway.send("GET", "/v1/users/\(them.userId)/profile", headers: me.auth)
        #expect(try profile.decode(APIModels.Profile.self).followers.map(\.userId) == [me.userId])
    }

    @Test func likeAndCommentCountOnMyProfileAtOnce() async throws {
        let (me, author) = try await (signUp(), signUp())
        let postId = try await post(author, #"{"title":"t","content":"c","product_id":"ryw_test"}"#).postId
        let liked = try await gateway.send(
            "POST", "/v1/posts/\(postId)/like", json: #"{"like_status":true}"#, headers: me.auth)
        #expect(liked.status == 200, "\(liked.text)")
        let commented = try await gateway.send(
            "POST", "/v1/posts/\(postId)/comments", json: #"{"content":"좋아요"}"#, headers: me.auth)
        #expect(commented.status == 200, "\(commented.text)")
        // likeCount and commentCount count what the profile's owner did.
        let profile = try await gateway.send("GET", "/v1/users/me/profile", headers: me.auth)
            .decode(APIModels.Profile.self)
        #expect(profile.likeCount == 1)
        #expect(profile.commentCount == 1)
    }

    @Test func paymentPutsTheBuyerOnThePostAtOnce() async throws {
        let (seller, buyer) = try await (signUp(), signUp())
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let apiKey = try TestEnvironment.apiKey()
        // One post with a price (Aug-2024 apps), one with the price in content4 and in the validation body (BookSNS).
        for (body, stated) in [
            (#"{"title":"책","content":"c","product_id":"ryw_market","price":7000}"#, ""),
            (
                #"{"title":"책","content":"c","content4":"7000","product_id":"ryw_market"}"#,
                #","productName":"책","price":7000"#
            ),
        ] {
            let postId = try await post(seller, body).postId
            let paid = try await sandbox.send(
                "POST", "/__sandbox/payments",
                json: """
                    {"merchant_uid":"ios_\(apiKey)_\(TestEnvironment.unique(""))","amount":7000,"name":"책"}
                    """)
            let impUid = try #require(try paid.json.string("imp_uid"))
            let validated = try await gateway.send(
                "POST", "/v1/payments/validation",
                json: #"{"imp_uid":"\#(impUid)","post_id":"\#(postId)"\#(stated)}"#, headers: buyer.auth)
            #expect(validated.status == 200, "\(validated.text)")
            let read = try await gateway.send("GET", "/v1/posts/\(postId)", headers: buyer.auth)
            #expect(try read.decode(APIModels.Post.self).buyers == [buyer.userId])
        }
    }

    @Test func withdrawRefusesTheTokenOnEveryServiceAtOnce() async throws {
        let me = try await signUp()
        let upload = try await gateway.upload(
            "/v1/posts/files", field: "files", files: [("a.png", "image/png", TestImages.png)], headers: me.auth)
        let file = try #require(try upload.decode(APIModels.UploadedFiles.self).files.first)
        let postId = try await post(me, #"{"title":"t","content":"c #rywtag","product_id":"ryw_test"}"#).postId
        let withdrawn = try await gateway.send("GET", "/v1/users/withdraw", headers: me.auth)
        #expect(withdrawn.status == 200, "\(withdrawn.text)")

        // The page reads check the account in their own statement (decision 0022): each of them is listed, the
        // past-the-end cursor (which reads no page) included.
        let pageReads = [
            "/v1/posts?limit=1", "/v1/posts?next=0", "/v1/posts/\(postId)", "/v1/posts/users/\(me.userId)",
            "/v1/posts/hashtags?hashTag=rywtag", "/v1/posts/likes/me", "/v1/posts/likes-2/me",
            "/v1/posts/feed/following", "/post", "/post/\(postId)", "/post/user/\(me.userId)",
            "/post/hashtag?hashTag=rywtag", "/post/like/me",
        ].map { ("GET", $0) }
        for (method, path) in pageReads + [
            ("GET", "/v1/users/me/profile"), ("GET", "/v1/payments/me"),
            ("GET", "/v1/\(file)"), ("GET", "/v1/users/withdraw"), ("GET", "/profile/me"),
        ] {
            let reply = try await gateway.send(method, path, headers: me.auth)
            #expect(reply.status == 401, "\(method) \(path) answered \(reply.status) right after withdraw")
        }
        // The writes that check the account in their own transaction (`ensureUser`), G1 and G0.
        for (path, body) in [
            ("/v1/posts", #"{"title":"t","content":"c","product_id":"ryw_test"}"#),
            ("/v1/posts/\(postId)/like", #"{"like_status":true}"#),
            ("/v1/posts/\(postId)/like-2", #"{"like_status":true}"#),
            ("/v1/posts/\(postId)/comments", #"{"content":"c"}"#),
            ("/post/like/\(postId)", ""), ("/post/\(postId)/comment", #"{"content":"c"}"#),
        ] {
            let reply = try await gateway.send("POST", path, json: body.isEmpty ? nil : body, headers: me.auth)
            #expect(reply.status == 401, "POST \(path) answered \(reply.status) right after withdraw")
        }
        // The G2 pages (an app's `ProductId`), read the same way.
        for path in ["/v1/posts?limit=1", "/v1/posts/feed", "/v1/posts/search?title=t", "/v1/posts/\(postId)"] {
            let reply = try await gateway.send(
                "GET", path, headers: me.auth.merging(["ProductId": TestEnvironment.productId]) { $1 })
            #expect(reply.status == 401, "G2 GET \(path) answered \(reply.status) right after withdraw")
        }
        // Refresh with the withdrawn user's tokens: 401 (revocation is checked before "not expired yet", 409).
        let refresh = try await gateway.send(
            "GET", "/v1/auth/refresh", headers: ["Authorization": me.access, "Refresh": me.refresh])
        #expect(refresh.status == 401, "\(refresh.text)")
    }
}
