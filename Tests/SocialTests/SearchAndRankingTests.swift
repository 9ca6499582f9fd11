import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import SocialService

@Suite("User search and rankings")
struct SearchAndRankingTests {
    @Test func searchIsCaseInsensitiveSubstringAndHangulAwareWithoutWithdrawnUsers() async throws {
        try await withSocialService { api in
            let run = TestEnvironment.unique("").prefix(6)
            let alice = try await api.user(nick: "Alice\(run)")
            let hangul = try await api.user(nick: "행복한수달\(run)")
            let gone = try await api.user(nick: "alicegone\(run)")
            try await api.waitProcessed(
                try await api.publish(UserWithdrawn(userId: gone.userId, withdrawnAt: Date()), key: gone.userId))

            let found = try await api.send(.get, "/v1/users/search?nick=ALICE\(run)", as: alice)
            #expect(found.status == 200)
            #expect(try found.json.keys == ["data"])
            #expect(found.data.map { $0["user_id"] as? String } == [alice.userId])
            #expect(Set(found.data[0].keys) == ["user_id", "nick"])
            let substring = "수달\(run)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(
                try await api.send(.get, "/v1/users/search?nick=\(substring)", as: alice).data.map {
                    $0["user_id"] as? String
                } == [hangul.userId])
            #expect(try await api.send(.get, "/v1/users/search?nick=", as: alice).status == 400)
            #expect(
                try await api.send(.get, "/v1/users/search?nick=%25", as: alice).status == 200,
                "LIKE wildcards are literal")
        }
    }

    @Test func searchUsesTheTrigramIndex() async throws {
        try await withSocialService { api in
            let s = api.schema
            struct Rollback: Error {}
            let plan = PlanText()
            do {
                // 200 000 rows into a trigram index take seconds, or minutes on a busy machine: the timeout is a
                // hang guard here, not a performance bar.
                try await api.platform.postgres.transaction(logger: TestEnvironment.logger, timeout: .seconds(600)) {
                    connection in
                    try await connection.query(
                        """
                        INSERT INTO \(table: s, "users") (user_id, nick) SELECT 'u' || g, '유저' || md5(g::text) FROM generate_series(1, 200000) g
                        """, logger: TestEnvironment.logger)
                    try await connection.query("ANALYZE \(table: s, "users")", logger: TestEnvironment.logger)
                    let rows = try await connection.query(
                        """
                        EXPLAIN SELECT user_id FROM \(table: s, "users") WHERE withdrawn_at IS NULL AND lower(nick) LIKE \("%저abc1%")
                        ORDER BY (lower(nick) LIKE \("저abc1%")) DESC, length(nick), lower(nick) LIMIT 20
                        """, logger: TestEnvironment.logger)
                    var lines: [String] = []
                    for try await line in rows.decode(String.self) { lines.append(line) }
                    plan.text = lines.joined(separator: "\n")
                    throw Rollback()
                }
            } catch is Rollback {}
            #expect(plan.text.contains("users_nick_trgm_idx"), "\(plan.text)")
        }
    }

    @Test func rankingsFollowTheActivityWithTimeDecay() async throws {
        try await withSocialService { api in
            let author = try await api.user()
            let fan = try await api.user()
            let product = TestEnvironment.unique("rank")
            let now = Date()
            let hot = ObjectID.generate(), cold = ObjectID.generate(), old = ObjectID.generate()
            var published: [UUID] = []
            for (postId, tag) in [(hot, "Hot"), (cold, "cold"), (old, "old")] {
                published.append(
                    try await api.publish(
                        PostCreated(
                            post: PostSnapshot(
                                postId: postId, userId: author.userId, productId: product, title: nil, price: nil,
                                files: [], hashTags: [tag], createdAt: now.addingTimeInterval(-7200),
                                updatedAt: now.addingTimeInterval(-7200))), key: postId))
            }
            // hot: 2 comments now; cold: 2 comments 5 hours ago (decayed); old: liked 2 days ago (outside 24h).
            for (postId, at) in [
                (hot, now), (hot, now), (cold, now.addingTimeInterval(-18_000)),
                (cold, now.addingTimeInterval(-18_000)),
            ] {
                published.append(
                    try await api.publish(
                        CommentCreated(
                            commentId: ObjectID.generate(), postId: postId, userId: fan.userId,
                            postUserId: author.userId, productId: product, createdAt: at), key: postId))
            }
            let last = try await api.publish(
                PostLiked(
                    like: LikeChange(
                        postId: old, userId: fan.userId, postUserId: author.userId,
                        productId: product, kind: .like, at: now.addingTimeInterval(-172_800))), key: old)
            for eventId in published + [last] { try await api.waitProcessed(eventId) }

            let posts = try await api.send(.get, "/v1/rankings/posts?product_id=\(product)&window=24h", as: fan)
            #expect(posts.status == 200, "\(posts.text)")
            #expect(posts.data.map { $0["post_id"] as? String } == [hot, cold])
            #expect(Set(posts.data[0].keys) == ["post_id", "user_id", "score", "likes", "comments"])
            let hotScore = try #require(posts.data[0]["score"] as? Double)
            let coldScore = try #require(posts.data[1]["score"] as? Double)
            #expect(
                hotScore > 3.9 && hotScore <= 4.0 && coldScore < hotScore / 1.5,
                "two comments now score 4 (minus minutes of decay), five hours ago about half")
            #expect(
                try await api.send(.get, "/v1/rankings/posts?product_id=\(product)&window=7d", as: fan).data.count == 3)
            #expect(
                try await api.send(.get, "/v1/rankings/posts?product_id=\(product)&window=1h", as: fan).data.map {
                    $0["post_id"] as? String
                } == [hot])

            let users = try await api.send(.get, "/v1/rankings/users?product_id=\(product)", as: fan)
            #expect(users.data.first?["user_id"] as? String == author.userId)
            let tags = try await api.send(.get, "/v1/rankings/hashtags?product_id=\(product)", as: fan)
            #expect(tags.data.first?["hashTag"] as? String == "Hot")
            #expect(try await api.send(.get, "/v1/rankings/posts?window=2d", as: fan).status == 400)
        }
    }
}

final class PlanText: @unchecked Sendable {
    // Safety: written inside one transaction closure, read after it returned, sequentially.
    var text = ""
}
