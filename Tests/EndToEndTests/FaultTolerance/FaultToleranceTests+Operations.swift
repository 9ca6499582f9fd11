import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// The operator's repairs on the real processes: dead letters sent back with `sns-admin dlq retry`, and a read
/// model rebuilt from the events with `sns-admin rebuild`.
extension FaultToleranceTests {
    /// Social cannot store one post (a constraint the test adds stands in for a bug): after its retries the event
    /// is parked on the dead-letter topic with the reason, the posts behind it on the same topic keep flowing,
    /// market applies all of them. Once "fixed" (the constraint dropped), `sns-admin dlq retry` sends it back:
    /// social applies it once, market skips the copy.
    @Test func aPoisonEventIsDeadLetteredTheRestFlowsAndDlqRetryAppliesItOnceFixed() async throws {
        try await MiniStack.with(["posts", "social", "market"]) { stack in
            try await stack.installEffectAudit()
            try await stack.execute(
                "ALTER TABLE social.posts ADD CONSTRAINT fault_test_bug CHECK (product_id <> 'ft_poison')")
            let token = try await stack.token(for: ObjectID.generate())
            let poison = try #require(await stack.createPost(token: token, title: "poison", productId: "ft_poison"))
            for index in 0..<5 { #expect(await stack.createPost(token: token, title: "after-\(index)") != nil) }

            try await stack.waitDrained()
            let stored = try await stack.storedPosts()
            #expect(
                try await stack.postsSeen(by: "social-projections") == stored.subtracting([poison]),
                "everything but the poison flowed")
            #expect(try await stack.postsSeen(by: "market-products") == stored)

            let listing = try await stack.runAdmin(["dlq", "list", "--consumer", "social-projections", "--json"])
            #expect(listing.status == 0, "\(listing.stderr)")
            let letters = try #require(
                try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]],
                "\(listing.stdout)")
            #expect(letters.count == 1)
            let letter = try #require(letters.first)
            #expect(letter["key"] as? String == poison)
            #expect(letter["event_type"] as? String == "post-created")
            #expect((letter["reason"] as? String)?.contains("fault_test_bug") == true, "\(letter)")
            let id = try #require(letter["id"] as? String)

            try await stack.execute("ALTER TABLE social.posts DROP CONSTRAINT fault_test_bug")
            let retry = try await stack.runAdmin(["dlq", "retry", id, "--json"])
            #expect(retry.status == 0, "\(retry.stderr)")
            #expect(retry.stdout.contains(id))
            try await stack.waitDrained()
            try await expectEveryPostAppliedOnce(stack, stored: stored)
            let after = try await stack.runAdmin(["dlq", "list", "--consumer", "social-projections", "--json"])
            #expect(
                (try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [Any])?.isEmpty == true,
                "\(after.stdout)")
        }
    }

    /// `sns-admin rebuild social` with the social process stopped empties its read model and resets its group;
    /// the restarted process re-reads every event and the read model comes out identical (row counts and
    /// checksum from `rebuild --dry-run`, before and after).
    @Test func rebuildingSocialFromTheEventsGivesTheSameReadModel() async throws {
        try await MiniStack.with(["posts", "social"]) { stack in
            var tokens: [String] = []
            for _ in 0..<3 { tokens.append(try await stack.token(for: ObjectID.generate())) }
            var posts: [String] = []
            for index in 0..<9 {
                posts.append(try #require(await stack.createPost(token: tokens[index % 3], title: "p\(index)")))
            }
            for (index, post) in posts.enumerated() {
                let token = tokens[(index + 1) % 3]
                #expect(
                    try await stack.send(
                        "posts", "POST", "/v1/posts/\(post)/like", token: token, json: #"{"like_status":true}"#
                    ).status == 200)
                #expect(
                    try await stack.send(
                        "posts", "POST", "/v1/posts/\(post)/comments", token: token, json: #"{"content":"c\#(index)"}"#
                    ).status == 200)
            }
            #expect(
                try await stack.send(
                    "posts", "POST", "/v1/posts/\(posts[0])/like", token: tokens[1], json: #"{"like_status":false}"#
                ).status == 200)
            try await stack.waitDrained(groups: ["social-projections"])
            let before = try await stack.rebuildSummary("social")
            // Nine posts, nine comments and nine likes (one of them since taken back: its row says so).
            #expect(
                before.rows["social.posts"] == 9 && before.rows["social.comments"] == 9
                    && before.rows["social.likes"] == 9, "\(before.rows)")

            // While social runs, a rebuild is refused and changes nothing. (Here, on this stack's own broker: the
            // refusal joins the group, which makes its live members rebalance.)
            let live = try await stack.runAdmin(["rebuild", "social", "--join-timeout", "5"])
            #expect(live.status != 0)
            #expect(live.stderr.contains("live members") || live.stderr.contains("refusing"), "\(live.stderr)")
            #expect(try await stack.rebuildSummary("social").rows == before.rows)

            // The refusal made the group rebalance twice (its join, its leave). Stopping social before it holds its
            // partitions again can leave a member the broker keeps until its session times out, and the rebuild's
            // join then waits on it; so one more event, applied (and committed) by social, shows the group settled.
            #expect(
                try await stack.send(
                    "posts", "POST", "/v1/posts/\(posts[1])/comments", token: tokens[0], json: #"{"content":"settled"}"#
                ).status == 200)
            try await stack.waitDrained(groups: ["social-projections"])
            let settled = try await stack.rebuildSummary("social")
            #expect(settled.rows["social.comments"] == 10, "\(settled.rows)")

            await stack.stop("social")
            let rebuild = try await stack.runAdmin(["rebuild", "social", "--json", "--join-timeout", "30"])
            #expect(rebuild.status == 0, "\(rebuild.stderr)")
            #expect(try await stack.rebuildSummary("social").rows.values.allSatisfy { $0 == 0 }, "emptied")

            try await stack.restart("social")
            try await stack.waitDrained(groups: ["social-projections"])
            let after = try await stack.rebuildSummary("social")
            #expect(after.rows == settled.rows)
            #expect(after.checksum == settled.checksum)
        }
    }
}
