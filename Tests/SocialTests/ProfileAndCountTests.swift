import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

@testable import SocialService

/// Contract §2.2 #6/#8, §3.4 and our counts, fed by events (duplicates, out of order).
@Suite("Profiles and activity counts")
struct ProfileAndCountTests {
    func snapshot(
        _ postId: String, _ userId: String, product: String = "uriBoard", tags: [String] = [], at: Date = Date()
    ) -> PostSnapshot {
        PostSnapshot(
            postId: postId, userId: userId, productId: product, title: nil, price: nil, files: [], hashTags: tags,
            createdAt: at, updatedAt: at)
    }

    @Test func myProfileAndOthersHaveTheContractsKeys() async throws {
        try await withSocialService { api in
            let me = try await api.user()
            let friend = try await api.user()
            #expect(try await api.send(.post, "/v1/follow/\(friend.userId)", as: me).status == 200)
            let mine = try await api.send(.get, "/v1/users/me/profile", as: me)
            #expect(mine.status == 200, "\(mine.text)")
            #expect(
                try mine.json.keys == [
                    "user_id", "email", "nick", "followers", "following", "posts", "postCount", "commentCount",
                    "likeCount", "followerCount", "followingCount",
                ])
            let following = try #require(try mine.json["following"] as? [[String: Any]])
            #expect(following.count == 1)
            #expect(Set(following[0].keys) == ["user_id", "nick"], "profileImage omitted when unset")
            #expect(try mine.decode(APIModels.Profile.self).followingCount == 1)

            let theirs = try await api.send(.get, "/v1/users/\(friend.userId)/profile", as: me)
            #expect(theirs.status == 200)
            #expect(
                try theirs.json.keys == [
                    "user_id", "nick", "followers", "following", "posts", "postCount", "commentCount",
                    "likeCount", "followerCount", "followingCount",
                ])
            #expect(try theirs.decode(APIModels.Profile.self).followers.first?.userId == me.userId)
            #expect(try await api.send(.get, "/v1/users/\(ObjectID.generate())/profile", as: me).status == 410)
        }
    }

    /// A burst with duplicates and deletions that overtake their creations ends in the right counts.
    @Test func countsSurviveDuplicatesAndOutOfOrderEvents() async throws {
        try await withSocialService { api in
            let author = try await api.user()
            let fan = try await api.user()
            let kept = ObjectID.generate()
            let gone = ObjectID.generate()
            let now = Date()
            let c1 = ObjectID.generate(), c2 = ObjectID.generate()
            var published: [UUID] = []
            // The deletion of `gone` and of comment c2 arrive before their creations; everything is sent twice.
            for _ in 0..<2 {
                try await api.publish(
                    PostDeleted(postId: gone, userId: author.userId, productId: "uriBoard", files: [], deletedAt: now),
                    key: gone)
                published.append(try await api.publish(PostCreated(post: snapshot(gone, author.userId)), key: gone))
                try await api.publish(PostCreated(post: snapshot(kept, author.userId)), key: kept)
                try await api.publish(
                    CommentCreated(
                        commentId: c1, postId: kept, userId: fan.userId, postUserId: author.userId,
                        productId: "uriBoard", createdAt: now), key: kept)
                try await api.publish(
                    CommentDeleted(
                        commentId: c2, postId: kept, userId: fan.userId, productId: "uriBoard", deletedAt: now),
                    key: kept)
                try await api.publish(
                    CommentCreated(
                        commentId: c2, postId: kept, userId: fan.userId, postUserId: author.userId,
                        productId: "uriBoard", createdAt: now), key: kept)
                // A like; a like-2 unmarked at now+1; then the older like-2 mark (at `now`) arriving late.
                let liked = LikeChange(
                    postId: kept, userId: fan.userId, postUserId: author.userId, productId: "uriBoard", kind: .like,
                    at: now)
                let lateLike2 = LikeChange(
                    postId: kept, userId: fan.userId, postUserId: author.userId, productId: "uriBoard", kind: .like2,
                    at: now)
                try await api.publish(PostLiked(like: liked), key: kept)
                try await api.publish(
                    PostUnliked(
                        like: LikeChange(
                            postId: kept, userId: fan.userId, postUserId: author.userId, productId: "uriBoard",
                            kind: .like2, at: now.addingTimeInterval(1))), key: kept)
                published.append(try await api.publish(PostLiked(like: lateLike2), key: kept))
            }
            // Each post's events are ordered on its partition; the last of each was waited for.
            for eventId in published { try await api.waitProcessed(eventId) }
            let authorProfile = try await api.send(.get, "/v1/users/\(author.userId)/profile", as: fan)
                .decode(APIModels.Profile.self)
            #expect(authorProfile.posts == [kept])
            #expect(authorProfile.postCount == 1)
            let fanProfile = try await api.send(.get, "/v1/users/me/profile", as: fan).decode(APIModels.Profile.self)
            #expect(fanProfile.commentCount == 1, "c2 was deleted, even though its deletion came first")
            #expect(fanProfile.likeCount == 1)
            #expect(
                try await api.count(
                    "SELECT count(*)::int FROM \(table: api.schema, "likes") WHERE post_id = \(kept) AND active AND kind = 'like2'"
                ) == 0,
                "the later unlike wins over the late like-2")
        }
    }

    /// A second service instance that projects the topics from the beginning into an empty schema ends with
    /// exactly the same counts and rankings (what the replay tooling relies on).
    @Test func aRebuildFromScratchGivesTheSameCountsAndRankings() async throws {
        let product = TestEnvironment.unique("rebuild")
        let state = ResultBox()
        let author = ObjectID.generate()
        try await withSocialService(schema: TestEnvironment.unique("social_")) { api in
            let fan = try await api.user()
            try await api.publish(
                UserRegistered(
                    userId: author, email: "\(author)@example.com", nick: "author\(author.prefix(6))",
                    phoneNum: nil, birthDay: nil, profileImage: nil, registeredAt: Date()), key: author)
            var published: [UUID] = []
            for index in 0..<6 {
                let postId = ObjectID.generate()
                published.append(
                    try await api.publish(
                        PostCreated(post: snapshot(postId, author, product: product, tags: ["tag\(index % 2)"])),
                        key: postId))
                for _ in 0...index {
                    published.append(
                        try await api.publish(
                            CommentCreated(
                                commentId: ObjectID.generate(), postId: postId, userId: fan.userId,
                                postUserId: author, productId: product, createdAt: Date()), key: postId))
                }
                published.append(
                    try await api.publish(
                        PostLiked(
                            like: LikeChange(
                                postId: postId, userId: fan.userId, postUserId: author,
                                productId: product, kind: .like, at: Date())), key: postId))
            }
            // Different posts travel on different partitions: wait for every event, not just the last one sent.
            for eventId in published { try await api.waitProcessed(eventId) }
            // One fixed instant for both computations, after every event of this test.
            state.asOf = Date().addingTimeInterval(60)
            state.first = try await snapshotOf(api, product: product, asOf: state.asOf, author: author)
        }
        try await withSocialService(schema: TestEnvironment.unique("social_")) { api in
            // Fresh schema, fresh group: everything comes from the topics' beginning.
            let deadline = Date().addingTimeInterval(90)
            let asOf = state.asOf
            var rebuilt = try await snapshotOf(api, product: product, asOf: asOf, author: author)
            while rebuilt != state.first && Date() < deadline {
                try await Task.sleep(for: .milliseconds(100))
                rebuilt = try await snapshotOf(api, product: product, asOf: asOf, author: author)
            }
            #expect(rebuilt == state.first)
            #expect(state.first?.posts.count == 6)
            #expect(state.first?.counts.posts == 6, "the rebuilt profile counts the same six posts")
        }
    }

    func snapshotOf(_ api: SocialClient, product: String, asOf: Date, author: String) async throws -> RankingSnapshot {
        let rankings = RankingQueries(client: api.platform.postgres, schema: api.schema)
        let store = SocialStore(client: api.platform.postgres, schema: api.schema)
        let lists = try await store.profileLists(of: author, logger: TestEnvironment.logger)
        return RankingSnapshot(
            posts: try await rankings.posts(
                productId: product, window: .day, limit: 50, asOf: asOf, logger: TestEnvironment.logger),
            users: try await rankings.users(
                productId: product, window: .day, limit: 50, asOf: asOf, logger: TestEnvironment.logger),
            hashtags: try await rankings.hashtags(
                productId: product, window: .day, limit: 50, asOf: asOf, logger: TestEnvironment.logger),
            counts: lists.counts)
    }
}

struct RankingSnapshot: Equatable, Sendable {
    var posts: [RankingQueries.PostRank]
    var users: [RankingQueries.UserRank]
    var hashtags: [RankingQueries.HashtagRank]
    var counts: SocialStore.Counts
}

final class ResultBox: @unchecked Sendable {
    // Safety: written once by the first service block and read afterwards, sequentially in one test.
    var first: RankingSnapshot?
    var asOf = Date()
}
