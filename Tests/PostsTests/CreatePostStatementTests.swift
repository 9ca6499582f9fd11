import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import PostsService

/// A new post is one statement (`CreatePost`): the author's row checked and share-locked, the post, its hashtags and
/// its `post-created` outbox row, or nothing at all.
@Suite("A new post in one statement")
struct CreatePostStatementTests {
    @Test func anAuthorStillUnknownHereGetsARowAndThePostWithItsEvent() async throws {
        try await withPostsService { api in
            // Signed by auth, but `user-registered` has not reached posts yet: no row in posts' read model.
            let userId = ObjectID.generate()
            let stranger = TestUser(userId: userId, nick: "", token: try await api.token(for: userId))
            #expect(
                try await api.sql("SELECT count(*)::int FROM posts.users WHERE user_id = \(userId)", Int.self) == [0])
            let post = try await api.createPost(as: stranger, #"{"content":"첫 글 #처음","product_id":"one-statement"}"#)
            let postId = try #require(post.string("post_id"))
            #expect(
                try await api.sql("SELECT count(*)::int FROM posts.users WHERE user_id = \(userId)", Int.self) == [1])
            #expect(
                try await api.sql("SELECT count(*)::int FROM posts.post_hashtags WHERE post_id = \(postId)", Int.self)
                    == [1])
            #expect(
                try await api.sql(
                    """
                    SELECT count(*)::int FROM posts.outbox
                    WHERE partition_key = \(postId) AND event_type = 'post-created' AND topic = 'sns.posts'
                    """, Int.self) == [1])
            #expect(try await api.send(.get, "/v1/posts/\(postId)", as: stranger).status == 200)
        }
    }

    /// A new post's document is written without reading likes and comments (`new_post_document`, migration 109):
    /// right only while no like or comment row can exist before its post, i.e. while their foreign keys are checked at
    /// once. A deferrable one (as `feed_entries`' was) would let such rows in within a transaction.
    @Test func likesAndCommentsCannotPrecedeTheirPost() async throws {
        try await withPostsService { api in
            let keys = try await api.sql(
                """
                SELECT (SELECT relname FROM pg_class WHERE oid = conrelid) || ' ' || condeferrable::text FROM pg_constraint
                WHERE contype = 'f' AND confrelid = 'posts.posts'::regclass
                  AND conrelid IN ('posts.likes'::regclass, 'posts.comments'::regclass)
                ORDER BY 1
                """, String.self)
            #expect(keys == ["comments false", "likes false"])
        }
    }

    @Test func aWithdrawnAuthorIs401AndNothingIsWritten() async throws {
        try await withPostsService { api in
            let gone = try await api.user()
            try await api.waitProcessed(
                try await api.publish(UserWithdrawn(userId: gone.userId, withdrawnAt: Date()), key: gone.userId))
            let reply = try await api.send(.post, "/v1/posts", as: gone, json: #"{"content":"안녕","product_id":"x"}"#)
            #expect(reply.status == 401)
            #expect(
                try await api.sql("SELECT count(*)::int FROM posts.posts WHERE user_id = \(gone.userId)", Int.self) == [
                    0
                ])
            #expect(
                try await api.sql(
                    "SELECT count(*)::int FROM posts.outbox WHERE position(\(gone.userId) IN payload::text) > 0",
                    Int.self) == [0])
        }
    }

    /// The new post wakes the relay: its event is published without the relay's fallback poll (an hour here), whether
    /// the statement's `pg_notify` does it (the process's relay does not lead) or the request's in-process nudge after
    /// the commit (it leads, decision 0036) — which of the two depends on whether the relay's first batch came before
    /// the request, so the test accepts either and fails (hang guard) only if neither wakes it. A private schema.
    @Test func theNewPostWakesTheRelay() async throws {
        let schema = TestEnvironment.unique("posts_")
        try await withPostsService(schema: schema, configure: { $0.platform.outboxPollInterval = .seconds(3600) }) {
            api in
            let userId = ObjectID.generate()
            let author = TestUser(userId: userId, nick: "", token: try await api.token(for: userId))
            let post = try await api.createPost(as: author, #"{"content":"깨워","product_id":"wake"}"#)
            let postId = try #require(post.string("post_id"))
            let outbox = try SQLIdentifier(schema)
            try await eventually("the new post's event published", guard: 120) {
                try await api.sql(
                    """
                    SELECT count(*)::int FROM \(table: outbox, "outbox")
                    WHERE partition_key = \(postId) AND published_at IS NOT NULL
                    """, Int.self) == [1]
            }
        }
    }
}
