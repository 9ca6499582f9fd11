import Foundation
import SNSTestSupport
import Testing

/// Best Moment, a photo feed (`product_id` `yeom`): the feed paged with `next_cursor` until `"0"` (API conventions §6),
/// likes, comments, and the token dance of §5 — the access token expires (419 → refresh → retry), later the
/// refresh token too (419 → refresh 418 → log in again → retry), all inside the app's interceptor.
@Suite("Best Moment journey through the gateway")
struct BestMomentJourneyTests {
    @Test func feedPagingLikesCommentsAndExpiredTokens() async throws {
        let gateway = try GatewayClient()
        let feed = TestEnvironment.unique("yeom_")
        let authors = [try await AppSession.signUp(gateway), try await AppSession.signUp(gateway)]
        var posted: [String] = []
        for index in 0..<12 {
            for author in authors {
                let reply = try await author.send(
                    "POST", "/v1/posts", json: #"{"content":"순간 \#(index) #bestmoment","product_id":"\#(feed)"}"#)
                posted.append(try #require(try reply.json.string("post_id")))
            }
        }

        // The feed screen: first page with next="" (and, like Todogram, with next omitted), then next_cursor until "0".
        let viewer = try await AppSession.signUp(gateway)
        let first = try await viewer.send("GET", "/v1/posts?next=&limit=5&product_id=\(feed)")
        let omitted = try await viewer.send("GET", "/v1/posts?limit=5&product_id=\(feed)")
        #expect(
            try items(first, as: APIModels.Post.self).map(\.postId)
                == items(omitted, as: APIModels.Post.self).map(\.postId))
        var seen: [String] = []
        var dates: [Date] = []
        var cursor = ""
        for _ in 0..<20 {  // 24 posts in pages of 5: six pages; the bound only guards against a cursor that never ends
            let page = try await viewer.send("GET", "/v1/posts?next=\(cursor)&limit=5&product_id=\(feed)")
            #expect(page.status == 200)
            let posts = try page.decode(APIModels.PostPage.self)
            seen += posts.data.map(\.postId)
            dates += posts.data.map(\.createdAt)
            cursor = posts.nextCursor
            if cursor == "0" { break }
        }
        #expect(cursor == "0")
        #expect(seen == Array(posted.reversed()), "every post once, newest first")
        #expect(dates == dates.sorted(by: >))

        // Likes and a comment on the newest moment.
        let newest = posted[posted.count - 1]
        let viewerId = await viewer.userId
        let liked = try await viewer.send("POST", "/v1/posts/\(newest)/like", json: #"{"like_status":true}"#).json
        #expect(liked.bool("like_status") == true)
        let afterLike = try await viewer.send("GET", "/v1/posts/\(newest)").decode(APIModels.Post.self)
        #expect(afterLike.likes == [viewerId])
        let unliked = try await viewer.send("POST", "/v1/posts/\(newest)/like", json: #"{"like_status":false}"#).json
        #expect(unliked.bool("like_status") == false)
        let afterUnlike = try await viewer.send("GET", "/v1/posts/\(newest)").decode(APIModels.Post.self)
        #expect(afterUnlike.likes == [])
        let comment = try await viewer.send("POST", "/v1/posts/\(newest)/comments", json: #"{"content":"멋진 순간이네요"}"#)
        #expect(try comment.json.keys == ["comment_id", "content", "createdAt", "creator"])

        // Ten minutes later: the access token has expired. The interceptor refreshes and retries.
        try await viewer.letAccessTokenExpire()
        let afterExpiry = try await viewer.send("GET", "/v1/posts/\(newest)")
        #expect(afterExpiry.status == 200)
        let comments = try afterExpiry.decode(APIModels.Post.self).comments
        #expect(comments.first?.content == "멋진 순간이네요")
        #expect(await viewer.refreshes == 1)
        #expect(await viewer.logins == 0)

        // Weeks later: both tokens have expired. Refresh answers 418; the app logs in again and carries on.
        try await viewer.letAccessTokenExpire()
        try await viewer.letRefreshTokenExpire()
        let afterRelogin = try await viewer.send("POST", "/v1/posts/\(newest)/like", json: #"{"like_status":true}"#)
        #expect(afterRelogin.status == 200)
        #expect(await viewer.refreshes == 1)
        #expect(await viewer.logins == 1)
    }
}
