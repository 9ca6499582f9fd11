import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

@testable import PostsService

/// Read models fed by other services' events through the real broker.
@Suite("Posts read models")
struct ReadModelTests {
    @Test func creatorNickFollowsUserUpdatedAndIgnoresOlderProfiles() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let id = try await api.createPost(as: alice, #"{"product_id":"p"}"#).string("post_id")!
            let renamed = TestEnvironment.unique("renamed")
            try await api.publish(
                UserUpdated(
                    userId: alice.userId, nick: renamed, phoneNum: nil, birthDay: nil,
                    profileImage: "uploads/profiles/x.jpg", updatedAt: Date()), key: alice.userId)
            try await eventually("nick updated") { try await api.nickInReadModel(alice.userId) == renamed }
            // An older profile arriving late (another producer) does not win.
            let stale = try await api.publish(
                UserUpdated(
                    userId: alice.userId, nick: "stale", phoneNum: nil, birthDay: nil, profileImage: nil,
                    updatedAt: Date().addingTimeInterval(-3600)), key: alice.userId)
            try await api.waitProcessed(stale)
            let creator = try await api.send(.get, "/v1/posts/\(id)", as: alice).decode(APIModels.Post.self).creator
            #expect(creator.nick == renamed)
            #expect(creator.profileImage == "uploads/profiles/x.jpg")
        }
    }

    /// §10.11: a withdrawn user's posts, comments and likes stop appearing for everyone else.
    @Test func withdrawnUsersDisappearFromEveryListAndLookup() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let bob = try await api.user()
            let product = TestEnvironment.unique("gone")
            let tag = TestEnvironment.unique("gonetag")
            let bobsPost = try await api.createPost(as: bob, ##"{"product_id":"\##(product)","content":"#\##(tag)"}"##)
                .string("post_id")!
            let alicesPost = try await api.createPost(as: alice, #"{"product_id":"\#(product)"}"#).string("post_id")!
            #expect(
                try await api.send(.post, "/v1/posts/\(alicesPost)/like", as: bob, json: #"{"like_status":true}"#)
                    .status == 200)
            #expect(
                try await api.send(.post, "/v1/posts/\(alicesPost)/comments", as: bob, json: #"{"content":"bye"}"#)
                    .status == 200)
            #expect(
                try await api.send(.post, "/v1/posts/\(bobsPost)/like-2", as: alice, json: #"{"like_status":true}"#)
                    .status == 200)

            try await api.publish(UserWithdrawn(userId: bob.userId, withdrawnAt: Date()), key: bob.userId)
            try await eventually("bob withdrawn") {
                try await api.sql(
                    "SELECT count(*)::int FROM posts.users WHERE user_id = \(bob.userId) AND withdrawn_at IS NOT NULL",
                    Int.self) == [1]
            }
            #expect(try await api.send(.get, "/v1/posts/\(bobsPost)", as: alice).status == 410)
            #expect(try await api.send(.get, "/v1/posts?product_id=\(product)", as: alice).postIds == [alicesPost])
            #expect(try await api.send(.get, "/v1/posts/users/\(bob.userId)", as: alice).postIds == [])
            #expect(try await api.send(.get, "/v1/posts/hashtags?hashTag=\(tag)", as: alice).postIds == [])
            #expect(try await api.send(.get, "/v1/posts/likes-2/me", as: alice).postIds == [])
            let post = try await api.send(.get, "/v1/posts/\(alicesPost)", as: alice).decode(APIModels.Post.self)
            #expect(post.likes == [])
            #expect(post.comments.count == 0)
            #expect(
                try await api.send(.get, "/v1/posts", as: bob).status == 401,
                "a withdrawn user's still-valid token is refused")
        }
    }

    @Test func followingFeedFromFollowEvents() async throws {
        try await withPostsService { api in
            let me = try await api.user()
            let friend = try await api.user()
            let stranger = try await api.user()
            let product = TestEnvironment.unique("feed")
            let f1 = try await api.createPost(as: friend, #"{"product_id":"\#(product)"}"#).string("post_id")!
            _ = try await api.createPost(as: stranger, #"{"product_id":"\#(product)"}"#)
            let f2 = try await api.createPost(as: friend, #"{"product_id":"\#(product)"}"#).string("post_id")!
            #expect(try await api.send(.get, "/v1/posts/feed/following", as: me).postIds == [])

            try await api.publish(
                UserFollowed(edge: FollowEdge(followerId: me.userId, followeeId: friend.userId, at: Date())),
                key: me.userId)
            try await api.publish(
                UserFollowed(edge: FollowEdge(followerId: me.userId, followeeId: friend.userId, at: Date())),
                key: me.userId)  // duplicate
            try await eventually("follow applied") {
                try await api.send(.get, "/v1/posts/feed/following?product_id=\(product)", as: me).postIds == [f2, f1]
            }
            let page = try await api.send(.get, "/v1/posts/feed/following?limit=1&product_id=\(product)", as: me)
            #expect(page.postIds == [f2])
            #expect(
                try await api.send(
                    .get, "/v1/posts/feed/following?limit=1&next=\(page.nextCursor!)&product_id=\(product)", as: me
                ).postIds == [f1])

            try await api.publish(
                UserUnfollowed(edge: FollowEdge(followerId: me.userId, followeeId: friend.userId, at: Date())),
                key: me.userId)
            try await eventually("unfollow applied") {
                try await api.send(.get, "/v1/posts/feed/following", as: me).postIds == []
            }
        }
    }

    @Test func purchaseCompletedAddsTheBuyerOnce() async throws {
        try await withPostsService { api in
            let seller = try await api.user()
            let buyer = try await api.user()
            let id = try await api.createPost(as: seller, #"{"product_id":"snapBook_market","price":1000}"#).string(
                "post_id")!
            let purchase = PurchaseCompleted(
                paymentId: ObjectID.generate(), impUid: "imp_\(id)", merchantUid: "m_\(id)",
                buyerId: buyer.userId, postId: id, productName: "book", price: 1000, paidAt: Date())
            try await api.publish(purchase, key: id)
            try await api.publish(purchase, key: id)
            try await eventually("buyer recorded") {
                let post = try await api.send(.get, "/v1/posts/\(id)", as: seller)
                return (try? post.decode(APIModels.Post.self))?.buyers == [buyer.userId]
            }
        }
    }
}
