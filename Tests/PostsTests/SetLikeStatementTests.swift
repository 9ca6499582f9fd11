import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Synchronization
import Testing

@testable import PostsService

/// A like is one statement (`SetLike`): the user's and the post's locks, the like, and its event only when it
/// changed, with the post's author and product filled in by the statement.
@Suite("A like in one statement")
struct SetLikeStatementTests {
    /// The outbox rows of one post's likes, oldest first: (event type, the `sns-event-type` header, the envelope).
    func likeEvents(_ api: PostsClient, post postId: String) async throws -> [(String, String, String)] {
        let types = try await api.sql(
            """
            SELECT event_type || ' ' || (headers->>'sns-event-type') FROM posts.outbox
            WHERE partition_key = \(postId) AND event_type IN ('post-liked', 'post-unliked') ORDER BY id
            """, String.self)
        let payloads = try await api.sql(
            """
            SELECT payload::text FROM posts.outbox
            WHERE partition_key = \(postId) AND event_type IN ('post-liked', 'post-unliked') ORDER BY id
            """, String.self)
        return zip(types, payloads).map { typeAndHeader, payload in
            let parts = typeAndHeader.split(separator: " ").map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "", payload)
        }
    }

    func like(_ events: [(String, String, String)], _ index: Int) throws -> (type: String, change: LikeChange) {
        let payload = Data(events[index].2.utf8)
        if events[index].0 == "post-liked" {
            let envelope = try EventCoding.decoder().decode(EventEnvelope<PostLiked>.self, from: payload)
            return (envelope.type, envelope.payload.like)
        }
        let envelope = try EventCoding.decoder().decode(EventEnvelope<PostUnliked>.self, from: payload)
        return (envelope.type, envelope.payload.like)
    }

    @Test func eachChangeWritesItsEventWithThePostsAuthorAndProductAndARepeatWritesNone() async throws {
        try await withPostsService { api in
            let (alice, bob) = (try await api.user(), try await api.user())
            let product = TestEnvironment.unique("set-like")
            let post = try await api.createPost(as: alice, #"{"content":"좋아요","product_id":"\#(product)"}"#)
            let postId = try #require(post.string("post_id"))
            func setLike(_ path: String, _ state: Bool) async throws -> Bool? {
                let reply = try await api.send(
                    .post, "/v1/posts/\(postId)/\(path)", as: bob, json: #"{"like_status":\#(state)}"#)
                #expect(reply.status == 200, "\(reply.text)")
                return try reply.json.bool("like_status")
            }
            #expect(try await setLike("like", true) == true)
            #expect(try await setLike("like", true) == true, "a repeat")
            #expect(try await setLike("like-2", true) == true)
            #expect(try await setLike("like", false) == false)
            #expect(try await setLike("like", false) == false, "a repeat")
            let events = try await likeEvents(api, post: postId)
            #expect(events.map(\.0) == ["post-liked", "post-liked", "post-unliked"], "one event per change")
            #expect(events.map(\.1) == events.map(\.0), "the header names the row's type")
            let expected: [(String, LikeKind)] = [
                ("post-liked", .like), ("post-liked", .like2), ("post-unliked", .like),
            ]
            for (index, (type, kind)) in expected.enumerated() {
                let (envelopeType, change) = try like(events, index)
                #expect(envelopeType == type)
                #expect(change.postId == postId && change.userId == bob.userId && change.kind == kind)
                #expect(change.postUserId == alice.userId && change.productId == product)
            }

            // G0's toggle: the opposite of the current state, each time with its event.
            for expectedState in [true, false] {
                let toggled = try await api.send(.post, "/post/like/\(postId)", as: bob)
                #expect(toggled.status == 200, "\(toggled.text)")
                #expect(try toggled.json.bool("like_status") == expectedState)
            }
            let afterToggles = try await likeEvents(api, post: postId)
            #expect(afterToggles.suffix(2).map(\.0) == ["post-liked", "post-unliked"])
            #expect(try like(afterToggles, 4).type == "post-unliked")

            // A post without a product: the key is left out, as Swift's encoder leaves out a nil.
            _ = try await api.sql(
                "UPDATE posts.posts SET product_id = NULL WHERE post_id = \(postId) RETURNING 1", Int.self)
            #expect(try await setLike("like", true) == true)
            let last = try await likeEvents(api, post: postId)
            #expect(!last[5].2.contains("product_id"))
            #expect(try like(last, 5).change.productId == nil && like(last, 5).change.postUserId == alice.userId)
        }
    }

    /// The user's own like commits while the request waits for the post's lock, so the statement's snapshot (taken
    /// before the wait) does not show it. A toggle must still unlike it, and an explicit unlike must still delete it:
    /// `PostStore.setLike` runs the statement again, and the second run sees the committed like.
    @Test(arguments: [("toggle", "/post/like/{id}", nil), ("unlike", "/v1/posts/{id}/like", #"{"like_status":false}"#)])
    func aLikeCommittedWhileTheRequestWaitedForThePostIsSeen(_ name: String, _ path: String, _ body: String?)
        async throws
    {
        try await withPostsService { api in
            let logger = TestEnvironment.logger
            let (alice, bob) = (try await api.user(), try await api.user())
            let postId = try #require(
                try await api.createPost(as: alice, #"{"content":"x","product_id":"set-like-race"}"#).string("post_id"))
            let reply = try await api.platform.postgres.withConnection { holder -> TestReply in
                // Another request of bob's, half done: it holds the post's lock and has inserted the like.
                var holderPid: Int32 = 0
                for try await pid in try await holder.query("SELECT pg_backend_pid()", logger: logger).decode(
                    Int32.self)
                {
                    holderPid = pid
                }
                try await holder.query("BEGIN", logger: logger)
                try await holder.query(
                    "SELECT 1 FROM posts.posts WHERE post_id = \(postId) FOR NO KEY UPDATE", logger: logger)
                try await holder.query(
                    "INSERT INTO posts.likes (post_id, kind, user_id, created_at) VALUES (\(postId), 1, \(bob.userId), now())",
                    logger: logger)
                let finished = Mutex(false)
                let request = Task {
                    defer { finished.withLock { $0 = true } }
                    return try await api.send(
                        .post, path.replacingOccurrences(of: "{id}", with: postId), as: bob, json: body)
                }
                var waiting = false
                for _ in 0..<600 where !waiting {  // hang guard: 60 s
                    let rows = try await api.platform.postgres.query(
                        """
                        SELECT count(*)::int FROM pg_stat_activity WHERE \(holderPid) = ANY(pg_blocking_pids(pid))
                        """, logger: logger)
                    for try await count in rows.decode(Int.self) { waiting = count > 0 }
                    if !waiting, finished.withLock({ $0 }) { break }
                    if !waiting { try await Task.sleep(for: .milliseconds(50)) }
                }
                try await holder.query("COMMIT", logger: logger)
                #expect(waiting, "\(name): the request waited for this transaction's locks")
                return try await request.value
            }
            #expect(reply.status == 200, "\(name): \(reply.text)")
            #expect(try reply.json.bool("like_status") == false, "\(name)")
            #expect(
                try await api.sql(
                    "SELECT count(*)::int FROM posts.likes WHERE post_id = \(postId) AND user_id = \(bob.userId)",
                    Int.self)
                    == [0], "\(name): the like is gone")
            #expect(try await likeEvents(api, post: postId).map(\.0) == ["post-unliked"], "\(name)")
        }
    }

    /// The like's time is PostgreSQL's, taken after the post's lock: the event and the row carry the same millisecond.
    @Test func theEventsTimeIsTheRowsTime() async throws {
        try await withPostsService { api in
            let (alice, bob) = (try await api.user(), try await api.user())
            let postId = try #require(
                try await api.createPost(as: alice, #"{"content":"x","product_id":"set-like-at"}"#).string("post_id"))
            #expect(
                try await api.send(.post, "/v1/posts/\(postId)/like", as: bob, json: #"{"like_status":true}"#).status
                    == 200)
            let stored = try await api.sql(
                """
                SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM posts.likes
                WHERE post_id = \(postId) AND user_id = \(bob.userId)
                """, String.self)
            let events = try await likeEvents(api, post: postId)
            let change = try like(events, 0).change
            #expect(stored == [APIDateFormat.string(from: change.at)])
        }
    }

    @Test func aUserStillUnknownHereGetsARowAndTheLike() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let postId = try #require(
                try await api.createPost(as: alice, #"{"content":"x","product_id":"set-like"}"#).string("post_id"))
            let userId = ObjectID.generate()
            let stranger = TestUser(userId: userId, nick: "", token: try await api.token(for: userId))
            let reply = try await api.send(
                .post, "/v1/posts/\(postId)/like", as: stranger, json: #"{"like_status":true}"#)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(
                try await api.sql("SELECT count(*)::int FROM posts.users WHERE user_id = \(userId)", Int.self) == [1])
            #expect(try await likeEvents(api, post: postId).count == 1)
        }
    }

    @Test func aWithdrawnUserIs401AndAGonePost410AndNothingIsWritten() async throws {
        try await withPostsService { api in
            let (alice, gone) = (try await api.user(), try await api.user())
            let postId = try #require(
                try await api.createPost(as: alice, #"{"content":"x","product_id":"set-like"}"#).string("post_id"))
            try await api.waitProcessed(
                try await api.publish(UserWithdrawn(userId: gone.userId, withdrawnAt: Date()), key: gone.userId))
            let refused = try await api.send(
                .post, "/v1/posts/\(postId)/like", as: gone, json: #"{"like_status":true}"#)
            #expect(refused.status == 401)
            #expect(
                try await api.sql(
                    "SELECT count(*)::int FROM posts.likes WHERE user_id = \(gone.userId)", Int.self) == [0])
            #expect(try await likeEvents(api, post: postId).isEmpty)

            let bob = try await api.user()
            let missing = ObjectID.generate()
            #expect(
                try await api.send(.post, "/v1/posts/\(missing)/like", as: bob, json: #"{"like_status":true}"#).status
                    == 410)
            try await api.waitProcessed(
                try await api.publish(UserWithdrawn(userId: alice.userId, withdrawnAt: Date()), key: alice.userId))
            #expect(
                try await api.send(.post, "/v1/posts/\(postId)/like", as: bob, json: #"{"like_status":true}"#).status
                    == 410, "the author withdrew")
            #expect(try await likeEvents(api, post: postId).isEmpty)
        }
    }
}
