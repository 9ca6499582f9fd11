import Foundation
import SNSTestSupport
import Testing

/// The free-board app (자게, UriBoard): members write, like, comment and follow on one board; a member's
/// profile shows followers, following, posts and our activity counts; the board's rankings show its most
/// active post and member.
@Suite("Free-board journey through the gateway")
struct FreeBoardJourneyTests {
    @Test func profilesWithCountsAndRankings() async throws {
        let gateway = try GatewayClient()
        let board = TestEnvironment.unique("uriBoard_")
        let (ann, ben, cat) = (
            try await AppSession.signUp(gateway), try await AppSession.signUp(gateway),
            try await AppSession.signUp(gateway)
        )
        let (annId, benId, catId) = (await ann.userId, await ben.userId, await cat.userId)

        let popular = try #require(
            try await ann.send(
                "POST", "/v1/posts", json: #"{"title":"질문","content":"스위프트 6 써보신 분? #swift","product_id":"\#(board)"}"#
            ).json.string("post_id"))
        let second = try #require(
            try await ann.send("POST", "/v1/posts", json: #"{"title":"후기","content":"써봤어요","product_id":"\#(board)"}"#)
                .json.string("post_id"))
        let bens = try #require(
            try await ben.send(
                "POST", "/v1/posts", json: #"{"title":"잡담","content":"점심 뭐 먹지","product_id":"\#(board)"}"#
            ).json.string("post_id"))
        for member in [ben, cat] {
            #expect(
                try await member.send("POST", "/v1/posts/\(popular)/like", json: #"{"like_status":true}"#).status == 200
            )
        }
        #expect(
            try await cat.send("POST", "/v1/posts/\(popular)/comments", json: #"{"content":"네 좋아요"}"#).status == 200)
        #expect(try await ann.send("POST", "/v1/posts/\(bens)/like", json: #"{"like_status":true}"#).status == 200)

        // Follows (each user becomes known to the social graph through their sign-up event first).
        for (member, target) in [(ben, annId), (cat, annId), (ann, benId)] {
            try await eventually("follow \(target)") {
                let reply = try await member.send("POST", "/v1/follow/\(target)")
                return reply.status == 200 || reply.status == 409
            }
        }

        try await eventually("ann's profile, as cat sees it") {
            let reply = try await cat.send("GET", "/v1/users/\(annId)/profile")
            guard let profile = try? reply.decode(APIModels.Profile.self) else { return false }
            return Set(profile.followers.map(\.userId)) == [benId, catId] && profile.following.map(\.userId) == [benId]
                && Set(profile.posts) == [popular, second]
                && profile.postCount == 2 && profile.followerCount == 2 && profile.followingCount == 1
        }
        let catEmail = await cat.email
        try await eventually("cat's own profile counts what cat did") {
            let reply = try await cat.send("GET", "/v1/users/me/profile")
            guard let mine = try? reply.decode(APIModels.Profile.self) else { return false }
            return mine.email == catEmail && mine.commentCount == 1 && mine.likeCount == 1 && mine.followingCount == 1
        }
        try await eventually("the board's rankings") {
            let postRanking = try await cat.send("GET", "/v1/rankings/posts?product_id=\(board)&window=24h")
            let userRanking = try await cat.send("GET", "/v1/rankings/users?product_id=\(board)&window=24h")
            let posts = (try? items(postRanking, as: APIModels.PostRank.self)) ?? []
            let users = (try? items(userRanking, as: APIModels.UserRank.self)) ?? []
            return posts.first?.postId == popular && posts.first?.likes == 2 && posts.first?.comments == 1
                && users.first?.userId == annId
        }
    }
}
