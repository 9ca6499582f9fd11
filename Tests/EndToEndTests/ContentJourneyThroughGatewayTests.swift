import Foundation
import SNSKafka
import SNSPlatform
import SNSTestSupport
import Testing

/// The content side as a SnapBook user lives it, through nginx and the real auth, media and posts processes:
/// sign up → log in → upload two images → create a post → it is on the feed → like → comment → hashtag
/// search → fetch the image → delete; and the post's events on the broker, in order.
@Suite("Content journey through the gateway")
struct ContentJourneyThroughGatewayTests {
    static let png = TestImages.png

    @Test func uploadCreateListLikeCommentSearchDelete() async throws {
        let gateway = try GatewayClient()
        let name = TestEnvironment.unique("cj")
        let joined = try await gateway.send(
            "POST", "/v1/users/join",
            json: #"{"email":"\#(name)@example.com","password":"password123","nick":"\#(name)"}"#)
        #expect(joined.status == 200, "\(joined.text)")
        let login = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"\#(name)@example.com","password":"password123"}"#)
        let token = try #require(try login.json.string("accessToken"))
        let userId = try #require(try login.json.string("user_id"))
        let auth = ["Authorization": token]

        // Upload: paths come back in upload order, whatever the filename and declared type say.
        let upload = try await gateway.upload(
            "/v1/posts/files", field: "files",
            files: [("test", "image/jpg", Self.png), ("postImage", "image/png", Self.png)], headers: auth)
        #expect(upload.status == 200, "\(upload.text)")
        let files = try upload.decode(APIModels.UploadedFiles.self).files
        #expect(files.count == 2)
        #expect(files.allSatisfy { $0.hasPrefix("uploads/posts/") && $0.hasSuffix(".png") })

        // The image is served back with the token, and only with it.
        let image = try await gateway.send("GET", "/v1/\(files[0])", headers: auth)
        #expect(image.status == 200)
        #expect(image.body == Self.png)
        #expect(image.header("Content-Type") == "image/png")
        #expect(try await gateway.send("GET", "/v1/\(files[0])").status == 401)

        // Create a post that uses them.
        let product = TestEnvironment.unique("snapBook")
        let tag = "책\(TestEnvironment.unique(""))"
        let created = try await gateway.send(
            "POST", "/v1/posts",
            json: #"""
                {"title":"중고 책","content":"읽을 만한 책 #\#(tag)","product_id":"\#(product)","files":["\#(files[0])","\#(files[1])"],"price":12000}
                """#, headers: auth)
        #expect(created.status == 200, "\(created.text)")
        let postId = try #require(try created.json.string("post_id"))

        // The feed shows it, with the creator's nick from the posts service's read model of users.
        try await eventually("creator nick reaches the posts read model") {
            let feed = try await gateway.send("GET", "/v1/posts?next=&limit=5&product_id=\(product)", headers: auth)
            let first = (try? feed.decode(APIModels.PostPage.self))?.data.first
            return first?.postId == postId && first?.creator.nick == name
        }
        let feed = try await gateway.send("GET", "/v1/posts?next=&limit=5&product_id=\(product)", headers: auth)
        #expect(try feed.json.string("next_cursor") == "0")

        // Like, comment, search.
        let liked = try await gateway.send(
            "POST", "/v1/posts/\(postId)/like", json: #"{"like_status":true}"#, headers: auth)
        #expect(try liked.json.bool("like_status") == true)
        let comment = try await gateway.send(
            "POST", "/v1/posts/\(postId)/comments", json: #"{"content":"사고 싶어요"}"#, headers: auth)
        #expect(comment.status == 200)
        let tagQuery = tag.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let search = try await gateway.send("GET", "/v1/posts/hashtags?hashTag=\(tagQuery)", headers: auth)
        let found = try #require(try search.decode(APIModels.PostPage.self).data.first)
        #expect(found.postId == postId)
        #expect(found.likes == [userId])
        #expect(found.comments.first?.content == "사고 싶어요")
        #expect(
            try await gateway.send("GET", "/v1/posts/likes/me", headers: auth).decode(APIModels.PostPage.self).data
                .count == 1)

        // Delete: 200, then gone.
        #expect(try await gateway.send("DELETE", "/v1/posts/\(postId)", headers: auth).status == 200)
        #expect(try await gateway.send("GET", "/v1/posts/\(postId)", headers: auth).status == 410)

        // The post's events, in order, keyed by the post id. Publication is at least once (the relay may send an
        // event again after an unacknowledged attempt; consumers skip it by its id): each distinct event counts once.
        let messages = try await TestPlatform.collectEvents(topic: Topic.posts, key: postId, count: 4)
        let types = messages.map { $0.header(EventHeader.eventType) }
        #expect(types == ["post-created", "post-liked", "comment-created", "post-deleted"])
    }
}
