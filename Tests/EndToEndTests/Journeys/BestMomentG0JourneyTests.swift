import Foundation
import SNSTestSupport
import Testing

/// Best Moment as written in 2023 (G0, API conventions §4; strongyeom/Best_Moment_SNS_Project): join → login → a moment
/// with a title and two inline images (`product_id` `yeom`) → the feed paged with an empty `limit` (the default)
/// until `next_cursor == "0"` → like toggled twice → comment → delete comment (`{postID, commentID}`) → my
/// profile, another user's profile and a follow → 419 → `GET /refresh` → retry → withdraw by POST. Side by side
/// with a G1 client on the same data: its posts show up in the G0 feed and it reads the G0 moment as G1.
@Suite("Best Moment (G0, 2023) journey through the gateway")
struct BestMomentG0JourneyTests {
    @Test func momentsFeedLikesCommentsProfilesAndTokenRenewal() async throws {
        let gateway = try GatewayClient()
        let feed = TestEnvironment.unique("yeom_")
        let photographer = try await AppSession.signUp(gateway, generation: .g0)
        let photographerId = await photographer.userId
        let modern = try await AppSession.signUp(gateway)

        // The feed fills: G1 posts and G0 moments interleaved, then the moment with two inline images.
        var expected: [String] = []
        for index in 0..<6 {
            let g1 = try await modern.send(
                "POST", "/v1/posts", json: ##"{"title":"G1 \##(index)","content":"#순간","product_id":"\##(feed)"}"##)
            expected.append(try #require(try g1.json.string("post_id")))
            let g0 = try await photographer.send(
                "POST", "/post", form: .g0Post(["title": "G0 \(index)", "content": "#순간", "product_id": feed]))
            #expect(g0.status == 200, "\(g0.text)")
            expected.append(try #require(try g0.json.string("_id")))
        }
        let moment = try await photographer.send(
            "POST", "/post",
            form: .g0Post(
                ["title": "노을", "content": "오늘의 #순간 #노을", "product_id": feed], images: [TestImages.png, TestImages.png])
        )
        #expect(moment.status == 200, "\(moment.text)")
        #expect(
            try moment.json.keys == [
                "likes", "image", "hashTags", "comments", "_id", "creator", "time", "title", "content", "product_id",
            ])
        let posted = try moment.decode(APIModels.G0Post.self)
        let momentId = posted.id
        let images = posted.image
        #expect(images.count == 2)
        #expect(posted.hashTags == ["순간", "노을"])
        expected.append(momentId)

        // The G1 client reads the moment in its own encoding: the same files, the same instant.
        let asG1 = try await modern.send("GET", "/v1/posts/\(momentId)").decode(APIModels.Post.self)
        #expect(asG1.files == images)
        #expect(asG1.createdAt == posted.time)

        // The feed: next omitted, then next_cursor with an empty limit (default 10) until "0".
        let viewer = try await AppSession.signUp(gateway, generation: .g0)
        let viewerId = await viewer.userId
        var seen: [String] = []
        var cursor: String? = nil
        for _ in 0..<10 {  // 13 posts in pages of 10: two pages
            let path = cursor.map { "/post?next=\($0)&limit=&product_id=\(feed)" } ?? "/post?limit=&product_id=\(feed)"
            let page = try await viewer.send("GET", path)
            #expect(page.status == 200, "\(page.text)")
            let posts = try page.decode(APIModels.G0PostList.self)
            #expect(posts.data.count <= 10)
            for post in items(page) {
                #expect(
                    Set(post.keys).isSuperset(of: [
                        "likes", "image", "hashTags", "comments", "_id", "creator", "time", "product_id",
                    ]))
                let optional: Set<String> = [
                    "title", "content", "content1", "content2", "content3", "content4", "content5",
                ]
                #expect(
                    Set(post.keys).isSubset(
                        of: optional.union([
                            "likes", "image", "hashTags", "comments", "_id", "creator", "time", "product_id",
                        ])),
                    "only G0 keys in a G0 post (no post_id, files, createdAt, likes2, buyers, price): \(post.keys.sorted())"
                )
            }
            seen += posts.data.map(\.id)
            cursor = posts.nextCursor
            if cursor == "0" { break }
        }
        #expect(cursor == "0")
        #expect(seen == Array(expected.reversed()))
        for path in images {
            #expect(try await viewer.image(path).body == TestImages.png)
        }

        // Like toggled twice.
        #expect(try await viewer.send("POST", "/post/like/\(momentId)").json.bool("like_status") == true)
        #expect(try await modern.send("GET", "/v1/posts/\(momentId)").decode(APIModels.Post.self).likes == [viewerId])
        #expect(try await viewer.send("POST", "/post/like/\(momentId)").json.bool("like_status") == false)
        #expect(try await viewer.send("GET", "/post/\(momentId)").decode(APIModels.G0Post.self).likes == [])

        // Comment, then delete it.
        let comment = try await viewer.send(
            "POST", "/post/\(momentId)/comment", json: #"{"content":"%EB%A9%8B%EC%A0%B8%EC%9A%94"}"#)
        #expect(comment.status == 200, "\(comment.text)")
        let commented = try comment.decode(APIModels.G0Comment.self)
        let commentId = commented.id
        #expect(commented.creator.id == viewerId)
        let inPost = try await viewer.send("GET", "/post/\(momentId)").json["comments"] as? [[String: Any]]
        #expect(inPost?.map { Set($0.keys) } == [["_id", "content", "time", "creator"]])
        let removed = try await viewer.send("DELETE", "/post/\(momentId)/comment/\(commentId)")
        #expect(removed.status == 200)
        #expect(try removed.json.string("postID") == momentId && removed.json.string("commentID") == commentId)

        // Profiles and a follow.
        try await eventually("both profiles exist") {
            let mine = try await viewer.send("GET", "/profile/me").status
            let theirs = try await viewer.send("GET", "/profile/\(photographerId)").status
            return mine == 200 && theirs == 200
        }
        let mine = try await viewer.send("GET", "/profile/me").json
        #expect(mine.keys.isSuperset(of: ["posts", "followers", "following", "_id", "email", "nick"]))
        let follow = try await viewer.send("POST", "/follow/\(photographerId)")
        #expect(follow.status == 200, "\(follow.text)")
        #expect(try follow.json.keys == ["user", "following", "following_status"])
        #expect(try follow.json.bool("following_status") == true)
        try await eventually("the photographer's profile lists the follower and the moments") {
            let reply = try await viewer.send("GET", "/profile/\(photographerId)")
            guard let theirs = try? reply.decode(APIModels.G0Profile.self) else { return false }
            // Another user's profile has no `email` key at all: read from the wire JSON.
            return try theirs.followers.map(\.id) == [viewerId] && theirs.posts.contains(momentId)
                && reply.json["email"] == nil
        }

        // Ten minutes later: 419 → GET /refresh ({token}) → retry.
        try await viewer.letAccessTokenExpire()
        let mineAgain = try await viewer.send("GET", "/profile/me")
        #expect(mineAgain.status == 200)
        #expect(await viewer.refreshes == 1)

        // Withdraw by POST (Best Moment's method).
        let withdrawn = try await viewer.send("POST", "/withdraw")
        #expect(withdrawn.status == 200, "\(withdrawn.text)")
        #expect(try withdrawn.json.keys == ["_id", "email", "nick"])
        #expect(try withdrawn.json.string("_id") == viewerId)
    }
}
