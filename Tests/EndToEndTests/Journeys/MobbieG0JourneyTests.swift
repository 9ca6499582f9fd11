import Foundation
import SNSTestSupport
import Testing

/// Mobbie as written in 2023-11 (G0, API conventions §4): join → login → write a post with two inline images and
/// `content1` = an anonymous nickname → feed `GET /post?next=&limit=20&product_id=MobbieFeed` paged until
/// `next_cursor == "0"` → like toggled twice → comment, then the app edits `content2` (the list of commenters'
/// nicknames, its only edit) → delete the comment → `/profile/me` → the access token expires (419 → `GET /refresh`
/// → retry) → withdraw by GET. A G1 client writes into the same feed and reads Mobbie's post, on the same data.
@Suite("Mobbie (G0, 2023) journey through the gateway")
struct MobbieG0JourneyTests {
    @Test func anonymousPostsFeedLikesCommentsAndTokenRenewal() async throws {
        let gateway = try GatewayClient()
        let feed = TestEnvironment.unique("MobbieFeed_")
        let member = try await AppSession.signUp(gateway, generation: .g0)
        let memberId = await member.userId

        // Write a post: content, content1 = anonymous nickname, two images inline (`file` twice).
        let written = try await member.send(
            "POST", "/post",
            form: .g0Post(
                ["product_id": feed, "content": "오늘 본 영화 #mobbie", "content1": "익명의수달"],
                images: [TestImages.png, TestImages.png]))
        #expect(written.status == 200, "\(written.text)")
        #expect(
            try written.json.keys == [
                "likes", "image", "hashTags", "comments", "_id", "creator", "time", "content", "content1", "product_id",
            ])
        let post = try written.decode(APIModels.G0Post.self)
        let postId = post.id
        let images = post.image
        #expect(images.count == 2 && images.allSatisfy { $0.hasPrefix("uploads/posts/") })
        #expect(post.hashTags == ["mobbie"])
        #expect(post.creator.id == memberId)
        for path in images {
            let image = try await member.image(path)
            #expect(image.status == 200)
            #expect(image.body == TestImages.png)
        }

        // Others write into the same feed, a G1 client among them (same tables, same events).
        let other = try await AppSession.signUp(gateway, generation: .g0)
        var expected = [postId]
        for index in 0..<22 {
            let reply = try await other.send(
                "POST", "/post", form: .g0Post(["product_id": feed, "content": "글 \(index)", "content1": "익명\(index)"]))
            expected.append(try #require(try reply.json.string("_id")))
        }
        let modern = try await AppSession.signUp(gateway)
        let g1Post = try await modern.send(
            "POST", "/v1/posts", json: #"{"content":"G1에서 쓴 글","product_id":"\#(feed)","content1":"현대인"}"#)
        expected.append(try #require(try g1Post.json.string("post_id")))

        // The feed screen: next="" first, then next_cursor until "0", 20 at a time.
        var seen: [String] = []
        var cursor = ""
        var pages = 0
        for _ in 0..<10 {  // 24 posts in pages of 20: two pages; the bound only guards against a cursor that never ends
            let page = try await member.send("GET", "/post?next=\(cursor)&limit=20&product_id=\(feed)")
            #expect(page.status == 200, "\(page.text)")
            #expect(try page.json.keys == ["data", "next_cursor"])
            let posts = try page.decode(APIModels.G0PostList.self)
            seen += posts.data.map(\.id)
            pages += 1
            cursor = posts.nextCursor
            if cursor == "0" { break }
        }
        #expect(cursor == "0")
        #expect(pages == 2)
        #expect(seen == Array(expected.reversed()), "every post once, newest first, G0 and G1 alike")

        // Like toggled twice: on, then off (no body).
        let liked = try await member.send("POST", "/post/like/\(postId)")
        #expect(liked.status == 200)
        #expect(try liked.json.keys == ["like_status"])
        #expect(try liked.json.bool("like_status") == true)
        #expect(try await member.send("GET", "/post/\(postId)").decode(APIModels.G0Post.self).likes == [memberId])
        let likedByMe = try await member.send("GET", "/post/like/me?next=&limit=20")
        #expect(try items(likedByMe, as: APIModels.G0Post.self).map(\.id) == [postId])
        let unliked = try await member.send("POST", "/post/like/\(postId)")
        #expect(try unliked.json.bool("like_status") == false)
        #expect(try await member.send("GET", "/post/\(postId)").decode(APIModels.G0Post.self).likes == [])

        // A comment; the app then records the commenter's nickname in content2 (multipart, that part only).
        let comment = try await other.send("POST", "/post/\(postId)/comment", json: #"{"content":"저도 봤어요"}"#)
        #expect(comment.status == 200, "\(comment.text)")
        #expect(try comment.json.keys == ["_id", "content", "time", "creator"])
        let commentId = try #require(try comment.json.string("_id"))
        let edited = try await member.send("PUT", "/post/\(postId)", form: .g0Post(["content2": "익명0"]))
        #expect(edited.status == 200, "\(edited.text)")
        let afterEdit = try edited.decode(APIModels.G0Post.self)
        #expect(afterEdit.content2 == "익명0")
        #expect(afterEdit.content1 == "익명의수달", "a part that is not sent keeps its field")
        #expect(afterEdit.image == images, "an edit without file parts keeps the images")
        #expect(afterEdit.comments.first?.id == commentId)

        // The G1 client sees the same post in its own encoding.
        let asG1 = try await modern.send("GET", "/v1/posts/\(postId)").decode(APIModels.Post.self)
        #expect(asG1.content2 == "익명0")
        #expect(asG1.files == images)

        // The commenter deletes the comment: `{postID, commentID}`.
        let deleted = try await other.send("DELETE", "/post/\(postId)/comment/\(commentId)")
        #expect(deleted.status == 200)
        #expect(try deleted.json.keys == ["postID", "commentID"])
        #expect(try await member.send("GET", "/post/\(postId)").decode(APIModels.G0Post.self).comments.isEmpty)

        // The profile tab.
        try await eventually("the profile knows the member's post") {
            let profile = try await member.send("GET", "/profile/me")
            guard profile.status == 200 else { return false }
            return try profile.decode(APIModels.G0Profile.self).posts.contains(postId)
        }
        let profile = try await member.send("GET", "/profile/me").json
        #expect(profile.string("_id") == memberId)
        #expect(
            profile.keys.isSubset(of: [
                "posts", "followers", "following", "_id", "email", "nick", "phoneNum", "birthDay", "profile",
            ]))

        // Ten minutes later: 419 → GET /refresh → retry, inside the interceptor.
        try await member.letAccessTokenExpire()
        let afterExpiry = try await member.send("GET", "/post/\(postId)")
        #expect(afterExpiry.status == 200)
        #expect(await member.refreshes == 1)

        // Withdraw by GET (RaeBaek/hyuk0510 style); the token is refused afterwards and the post is gone for all.
        let withdrawn = try await member.send("GET", "/withdraw")
        #expect(withdrawn.status == 200, "\(withdrawn.text)")
        #expect(try withdrawn.json.keys == ["_id", "email", "nick"])
        #expect(try withdrawn.json.string("_id") == memberId)
        #expect(
            try await gateway.send("POST", "/login", json: #"{"email":"\#(member.email)","password":"password123"}"#)
                .status == 401)
        try await eventually("the withdrawn member's post disappears and their token is refused") {
            let gone = try await other.send("GET", "/post/\(postId)").status
            let refused = try await member.send("GET", "/post?next=").status
            return gone == 410 && refused == 401
        }
    }
}
