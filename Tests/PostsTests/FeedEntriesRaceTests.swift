import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Synchronization
import Testing

@testable import PostsService

/// The following feed's rows name their post without a foreign key (migration 105, decision 0014). What the key's
/// check did for a follow's backfill is done by the backfill's own `FOR KEY SHARE`: a post being deleted while
/// someone follows its author either is skipped or takes the new feed rows with it, never leaving a row behind.
@Suite("Following feed without a foreign key")
struct FeedEntriesRaceTests {
    @Test func aFollowBackfillRacingAPostDeletionLeavesNoFeedRowBehind() async throws {
        try await TestPlatform.with { platform in
            let schema = try SQLIdentifier(TestEnvironment.unique("fe_"))
            try await Migrator(
                schema: schema, migrations: PlatformMigrations.all(schema: schema) + PostsMigrations.all(schema: schema)
            )
            .migrate(client: platform.postgres.client, logger: TestEnvironment.logger)
            let logger = TestEnvironment.logger
            for post in ["kept", "deleted"] {
                try await platform.postgres.query(
                    """
                    INSERT INTO \(table: schema, "posts") (post_id, user_id, product_id, title, content, files, hash_tags,
                                                        author_withdrawn, created_at, updated_at)
                    VALUES (\(post), 'author', 'race', 'title', 'content', '{}', '{}', false, now(), now())
                    """, logger: logger)
            }

            try await platform.postgres.withConnection { deleter in
                try await deleter.query("BEGIN", logger: logger)
                try await deleter.query(
                    "DELETE FROM \(table: schema, "posts") WHERE post_id = 'deleted'", logger: logger)

                // The follow's backfill reads both posts; the one being deleted is locked by the deletion.
                let finished = Mutex(false)
                let follower = Task {
                    defer { finished.withLock { $0 = true } }
                    try await platform.postgres.withConnection { connection -> Void in
                        try await connection.query(
                            "INSERT INTO \(table: schema, "follows") (follower_id, followee_id) VALUES ('reader', 'author')",
                            logger: logger)
                    }
                }
                // Until the follow waits for the deletion's lock (or, without the lock, is already done).
                var waiting = false
                for _ in 0..<600 where !waiting {  // hang guard: 60 s
                    let rows = try await platform.postgres.query(
                        """
                        SELECT count(*)::int FROM pg_stat_activity
                        WHERE wait_event_type = 'Lock' AND query LIKE \("INSERT INTO %" + schema.name + "%follows%")
                        """, logger: logger)
                    for try await count in rows.decode(Int.self) { waiting = count > 0 }
                    if !waiting, finished.withLock({ $0 }) { break }
                    if !waiting { try await Task.sleep(for: .milliseconds(100)) }
                }
                try await deleter.query("COMMIT", logger: logger)
                try await follower.value
                #expect(waiting, "the follow's backfill waited for the post being deleted")
            }

            let rows = try await platform.postgres.query(
                "SELECT post_id FROM \(table: schema, "feed_entries") WHERE follower_id = 'reader' ORDER BY post_id",
                logger: logger)
            var feed: [String] = []
            for try await postId in rows.decode(String.self) { feed.append(postId) }
            #expect(feed == ["kept"])
        }
    }
}
