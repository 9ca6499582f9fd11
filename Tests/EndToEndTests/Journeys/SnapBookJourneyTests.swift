import Foundation
import SNSTestSupport
import Testing

/// SnapBook (BookSNS), a book-review app with a used-book market (API conventions §2, `product_id` `snapBook` and
/// `snapBook_market`): sign up → upload cover photos → review with hashtags → a reader finds it by hashtag and
/// scraps it (SnapBook's scrap list is `likes/me`) → follows the writer → the writer's profile → the writer
/// lists a used book → the reader pays (the iamport SDK's part played by the PortOne test server) → validation →
/// payment history → the post names its buyer.
@Suite("SnapBook journey through the gateway")
struct SnapBookJourneyTests {
    @Test func signUpUploadReviewScrapFollowProfileMarketPayHistory() async throws {
        let gateway = try GatewayClient()
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let writer = try await AppSession.signUp(gateway)
        let reader = try await AppSession.signUp(gateway)
        let writerId = await writer.userId, readerId = await reader.userId

        // A review with two cover photos and hashtags in its content.
        let files = try await writer.upload([TestImages.png, TestImages.png])
        #expect(files.count == 2)
        let tag = TestEnvironment.unique("책")
        let filesJSON = String(decoding: try JSONSerialization.data(withJSONObject: files), as: UTF8.self)
        let review = try await writer.send(
            "POST", "/v1/posts",
            json: """
                {"title":"데미안","content":"다시 읽어도 좋은 책 #\(tag) #독서","content1":"9788937460449","product_id":"snapBook","files":\(filesJSON)}
                """)
        #expect(review.status == 200, "\(review.text)")
        let post = try review.decode(APIModels.Post.self)
        let postId = post.postId
        #expect(post.hashTags == [tag, "독서"])
        #expect(post.files == files)
        #expect(post.creator.userId == writerId)

        // The reader searches the tag (SnapBook sends no product_id there), scraps the review, follows the writer.
        let found = try await reader.send("GET", "/v1/posts/hashtags?hashTag=\(tag)&next=&limit=10")
        #expect(found.status == 200)
        #expect(try items(found, as: APIModels.Post.self).map(\.postId) == [postId])
        #expect(try await reader.image(files[0]).body == TestImages.png)
        let scrap = try await reader.send("POST", "/v1/posts/\(postId)/like", json: #"{"like_status":true}"#)
        #expect(try scrap.json.bool("like_status") == true)
        let scraps = try await reader.send("GET", "/v1/posts/likes/me?next=&limit=20")
        #expect(try items(scraps, as: APIModels.Post.self).contains { $0.postId == postId })
        try await eventually("the writer is known to the social graph") {
            try await reader.send("POST", "/v1/follow/\(writerId)").status != 410
        }
        let profile = try await reader.send("GET", "/v1/users/\(writerId)/profile")
        #expect(profile.status == 200)
        #expect(try profile.json["email"] == nil, "another user's profile has no email")
        try await eventually("the writer's profile shows the follower and the review") {
            let reply = try await reader.send("GET", "/v1/users/\(writerId)/profile")
            guard let profile = try? reply.decode(APIModels.Profile.self) else { return false }
            return profile.followers.map(\.userId) == [readerId] && profile.posts.contains(postId)
        }

        // The writer sells a used copy; the reader buys it.
        let listing = try await writer.send(
            "POST", "/v1/posts",
            json: #"""
                {"title":"데미안 (중고)","content":"밑줄 없음 #중고책","product_id":"snapBook_market","price":8000}
                """#)
        let bookId = try #require(try listing.json.string("post_id"))
        let market = try await reader.send("GET", "/v1/posts?next=&limit=50&product_id=snapBook_market")
        #expect(try items(market, as: APIModels.Post.self).contains { $0.postId == bookId && $0.price == 8000 })
        try await eventually("the market knows the listing") {
            let probe = #"{"imp_uid":"imp_probe_\#(TestEnvironment.unique(""))","post_id":"\#(bookId)"}"#
            return try await reader.send("POST", "/v1/payments/validation", json: probe).status == 400
        }
        let apiKey = try TestEnvironment.apiKey()
        let paid = try await sandbox.send(
            "POST", "/__sandbox/payments",
            json: """
                {"merchant_uid":"ios_\(apiKey)_\(Int(Date().timeIntervalSince1970 * 1000))_\(TestEnvironment.unique(""))","amount":8000,"name":"데미안 (중고)"}
                """)
        let impUid = try #require(try paid.json.string("imp_uid"))
        let validated = try await reader.send(
            "POST", "/v1/payments/validation", json: #"{"imp_uid":"\#(impUid)","post_id":"\#(bookId)"}"#)
        #expect(validated.status == 200, "\(validated.text)")
        #expect(try validated.decode(APIModels.Payment.self).price == 8000)
        let history = try await reader.send("GET", "/v1/payments/me")
        #expect(try items(history, as: APIModels.Payment.self).first?.postId == bookId)
        try await eventually("the listing names its buyer") {
            let listed = try await reader.send("GET", "/v1/posts/\(bookId)")
            return (try? listed.decode(APIModels.Post.self))?.buyers == [readerId]
        }
    }
}
