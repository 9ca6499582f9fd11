import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import PostsService

/// The corners of the contract a real client or a careless one runs into.
@Suite("Posts edge cases")
struct PostEdgeCaseTests {
    static let postKeys: Set<String> = [
        "post_id", "product_id", "title", "content", "price", "createdAt", "creator", "files",
        "likes", "likes2", "buyers", "hashTags", "comments",
    ]

    @Test func listItemsAndEditsHaveExactlyThePostKeys() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let product = TestEnvironment.unique("keys")
            let id = try await api.createPost(
                as: alice, #"{"product_id":"\#(product)","title":"t","content":"c","price":1}"#
            ).string("post_id")!
            let list = try await api.send(.get, "/v1/posts?product_id=\(product)", as: alice)
            #expect(list.posts.count == 1)
            #expect(Set(list.posts[0].keys) == Self.postKeys)
            let edited = try await api.send(.put, "/v1/posts/\(id)", as: alice, json: #"{"title":"t2"}"#)
            #expect(try edited.json.keys == Self.postKeys)
        }
    }

    @Test func nullClearsAFieldAbsentKeepsItProductIdIsRequired() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            #expect(try await api.send(.post, "/v1/posts", as: alice, json: #"{"title":"no product"}"#).status == 400)
            #expect(try await api.send(.post, "/v1/posts", as: alice, json: #"{"product_id":""}"#).status == 400)
            let id = try await api.createPost(as: alice, #"{"product_id":"p","title":"t","content1":"c1","price":5}"#)
                .string("post_id")!
            let cleared = try await api.send(.put, "/v1/posts/\(id)", as: alice, json: #"{"title":null,"price":null}"#)
            #expect(cleared.status == 200)
            let json = try cleared.json
            #expect(json["title"] == nil && json["price"] == nil, "cleared fields are omitted, never null")
            #expect(json.string("content1") == "c1")
            #expect(try await api.send(.put, "/v1/posts/\(id)", as: alice, json: #"{"product_id":null}"#).status == 400)
        }
    }

    @Test func oddInputIsA400NeverA500() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let id = try await api.createPost(as: alice, #"{"product_id":"p"}"#).string("post_id")!
            let cases: [(String, PostsClient.Reply)] = [
                (
                    "NUL in title",
                    try await api.send(.post, "/v1/posts", as: alice, json: #"{"product_id":"p","title":"a\u0000b"}"#)
                ),
                (
                    "NUL in comment",
                    try await api.send(.post, "/v1/posts/\(id)/comments", as: alice, json: #"{"content":"a\u0000"}"#)
                ),
                ("NUL in product_id query", try await api.send(.get, "/v1/posts?product_id=%00", as: alice)),
                ("NUL in hashTag query", try await api.send(.get, "/v1/posts/hashtags?hashTag=a%00", as: alice)),
                (
                    "float price",
                    try await api.send(.post, "/v1/posts", as: alice, json: #"{"product_id":"p","price":1.5}"#)
                ),
                ("like without status", try await api.send(.post, "/v1/posts/\(id)/like", as: alice, json: #"{}"#)),
            ]
            for (name, reply) in cases {
                #expect(reply.status == 400, "\(name): \(reply.status) \(reply.text)")
                #expect(try reply.json.keys == ["message"], "\(name)")
            }
            #expect(
                try await api.send(.get, "/v1/posts/\(String(repeating: "x", count: 5000))", as: alice).status == 410)
        }
    }

    @Test func pagingPastTheEndAndHugeLimits() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let pastEnd = try await api.send(.get, "/v1/posts?next=0", as: alice)
            #expect(pastEnd.status == 200)
            #expect(pastEnd.postIds == [])
            #expect(pastEnd.nextCursor == "0")
            #expect(try await api.send(.get, "/v1/posts?limit=99999999999999999999999", as: alice).status == 200)
            #expect(try await api.send(.get, "/v1/posts?limit=-3", as: alice).status == 400)
            #expect(
                try await api.send(.get, "/v1/posts?limit=", as: alice).status == 200,
                "an empty limit is the default (Best_Moment)")
        }
    }

    @Test func commentsOfADeletedPostAre410() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let id = try await api.createPost(as: alice, #"{"product_id":"p"}"#).string("post_id")!
            let comment = try await api.send(.post, "/v1/posts/\(id)/comments", as: alice, json: #"{"content":"c"}"#)
                .json.string("comment_id")!
            #expect(try await api.send(.delete, "/v1/posts/\(id)", as: alice).status == 200)
            #expect(
                try await api.send(.put, "/v1/posts/\(id)/comments/\(comment)", as: alice, json: #"{"content":"x"}"#)
                    .status == 410)
            #expect(try await api.send(.delete, "/v1/posts/\(id)/comments/\(comment)", as: alice).status == 410)
        }
    }

    /// Every change is published with what consumers need; refused requests publish nothing.
    @Test func eventsCarryTheChangeAndRefusalsPublishNothing() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let bob = try await api.user()
            let file = api.file(for: alice)
            let id = try await api.createPost(
                as: alice, ##"{"product_id":"snapBook_market","title":"book","price":9000,"content":"#Sale"}"##
            ).string("post_id")!
            #expect(
                try await api.send(.put, "/v1/posts/\(id)", as: alice, json: #"{"files":["\#(file)"],"price":8000}"#)
                    .status == 200)
            #expect(
                try await api.send(.post, "/v1/posts/\(id)/like-2", as: bob, json: #"{"like_status":true}"#).status
                    == 200)
            #expect(
                try await api.send(.post, "/v1/posts/\(id)/like-2", as: bob, json: #"{"like_status":false}"#).status
                    == 200)
            let comment = try await api.send(.post, "/v1/posts/\(id)/comments", as: bob, json: #"{"content":"c"}"#).json
                .string("comment_id")!
            // Refused: not the owner, gone.
            #expect(try await api.send(.put, "/v1/posts/\(id)", as: bob, json: #"{"title":"x"}"#).status == 445)
            #expect(try await api.send(.delete, "/v1/posts/\(id)/comments/\(comment)", as: alice).status == 445)
            #expect(
                try await api.send(.delete, "/v1/posts/\(id)/comments/\(ObjectID.generate())", as: bob).status == 410)
            #expect(try await api.send(.delete, "/v1/posts/\(id)/comments/\(comment)", as: bob).status == 200)
            #expect(try await api.send(.delete, "/v1/posts/\(id)", as: alice).status == 200)

            let rows = try await api.platform.postgres.query(
                "SELECT event_type, payload::text FROM posts.outbox WHERE partition_key = \(id) ORDER BY id",
                logger: TestEnvironment.logger)
            var events: [(String, JSONObject)] = []
            for try await (type, payload) in rows.decode((String, String).self) {
                events.append((type, try JSONObject(Array(payload.utf8))))
            }
            #expect(
                events.map(\.0) == [
                    "post-created", "post-updated", "post-liked", "post-unliked", "comment-created",
                    "comment-deleted", "post-deleted",
                ])
            let updated = try #require(events[1].1["payload"] as? [String: Any])["post"] as? [String: Any]
            #expect(updated?["price"] as? Int == 8000)
            #expect(updated?["files"] as? [String] == [file])
            #expect(updated?["hash_tags"] as? [String] == ["Sale"])
            let unliked = try #require(events[3].1["payload"] as? [String: Any])["like"] as? [String: Any]
            #expect(unliked?["kind"] as? String == "like2")
            #expect(unliked?["user_id"] as? String == bob.userId)
            #expect(unliked?["post_user_id"] as? String == alice.userId)
            let deleted = try #require(events[6].1["payload"] as? [String: Any])
            #expect(deleted["files"] as? [String] == [file])
        }
    }

    @Test func followEventsAfterAWithdrawalAreNotKept() async throws {
        try await withPostsService { api in
            let me = try await api.user()
            let gone = try await api.user()
            _ = try await api.createPost(as: gone, #"{"product_id":"p"}"#)
            let withdrawn = try await api.publish(
                UserWithdrawn(userId: gone.userId, withdrawnAt: Date()), key: gone.userId)
            try await api.waitProcessed(withdrawn)
            let late = try await api.publish(
                UserFollowed(edge: FollowEdge(followerId: me.userId, followeeId: gone.userId, at: Date())),
                key: me.userId)
            try await api.waitProcessed(late)
            #expect(
                try await api.sql("SELECT count(*)::int FROM posts.follows WHERE follower_id = \(me.userId)", Int.self)
                    == [0])
            #expect(try await api.send(.get, "/v1/posts/feed/following", as: me).postIds == [])
        }
    }
}
