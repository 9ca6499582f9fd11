import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// Processes and the broker dying under a real write load, each test on its own `MiniStack` (a private
/// database, dev broker and service processes). Posts is the writer; social's and market's `sns.posts`
/// consumers are the downstream effects, audited by a trigger that counts every execution of their upserts.
/// The tests run one at a time: each starts four processes on a two-core machine.
@Suite("Fault tolerance of the event pipeline (real processes)", .serialized)
struct FaultToleranceTests {
    /// `kill -9` of the posts service while six clients keep writing: every post answered 200 is stored with
    /// exactly one outbox row, the restarted process's relay publishes what the dead one left, and every
    /// consumer applies every post exactly once (a relay killed between the broker's ack and marking the row
    /// published sends it again; the consumers skip that copy).
    @Test func aWriterKilledMidBurstLosesNothingAndNoEventIsAppliedTwice() async throws {
        try await MiniStack.with(["posts", "social", "market"]) { stack in
            try await stack.installEffectAudit()
            var tokens: [String] = []
            for _ in 0..<3 { tokens.append(try await stack.token(for: ObjectID.generate())) }
            let writers = tokens
            let acknowledged = LockedList()
            let pid = try #require(await stack.processIdentifier("posts"))
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<6 {
                    group.addTask {
                        // Each client writes until the service stops answering (bounded in case it never does).
                        for index in 0..<400 {
                            guard
                                let postId = await stack.createPost(
                                    token: writers[worker % writers.count], title: "w\(worker)-\(index)")
                            else { return }
                            acknowledged.append(postId)
                        }
                    }
                }
                group.addTask {
                    // The clients are still sending when this fires, so the kill lands in the middle of the burst.
                    try? await eventually("40 acknowledged writes", guard: 120) { acknowledged.count >= 40 }
                    kill(pid, SIGKILL)
                }
            }
            #expect(await stack.terminationWasSIGKILL("posts"))
            let acked = Set(acknowledged.values)
            #expect(acked.count >= 40)

            try await stack.restart("posts")
            let stored = try await stack.storedPosts()
            #expect(acked.isSubset(of: stored), "every post answered 200 is stored")
            let outbox = try await stack.outboxRows()
            #expect(Set(outbox.keys) == stored, "every stored post has its post-created outbox row")
            #expect(outbox.values.allSatisfy { $0 == 1 }, "and only one")

            try await stack.waitDrained()
            try await expectEveryPostAppliedOnce(stack, stored: stored)
            print(
                "fault test: writer killed after \(acked.count) acknowledged posts; \(stored.count) stored; "
                    + "\(try await stack.publishedPostEvents()) post events on the broker")
        }
    }

    /// The broker goes away (connections dropped and refused) while the app keeps posting: every write is
    /// answered 200 and held in the outbox, `/ready` says the service is not ready, and once the broker is
    /// back everything flows without any operator action and is applied once.
    @Test func writesSucceedDuringABrokerOutageAndFlowOnceItIsBack() async throws {
        try await MiniStack.with(["posts", "social", "market"]) { stack in
            try await stack.installEffectAudit()
            let token = try await stack.token(for: ObjectID.generate())
            for index in 0..<5 { #expect(await stack.createPost(token: token, title: "before-\(index)") != nil) }
            try await stack.waitDrained()

            try await stack.brokerOutage(true)
            var during: [String] = []
            for index in 0..<20 {
                if let postId = await stack.createPost(token: token, title: "during-\(index)") { during.append(postId) }
            }
            #expect(during.count == 20, "every write during the outage is answered 200")
            #expect(try await stack.pendingOutboxRows() == 20, "and waits in the outbox")
            let ready = try await stack.url("posts", "/ready")
            try await eventually("posts reports not ready while the broker is away", guard: 60) {
                await MiniStack.status(of: ready) == 503
            }

            try await stack.brokerOutage(false)
            try await stack.waitDrained()
            let stored = try await stack.storedPosts()
            #expect(stored.count == 25)
            #expect(Set(during).isSubset(of: stored))
            try await expectEveryPostAppliedOnce(stack, stored: stored)
            #expect(await MiniStack.status(of: ready) == 200)
        }
    }

    /// The in-memory dev broker dies and loses everything — including events a consumer had not read yet
    /// (social is down meanwhile). Writes during the gap are answered 200. The operator starts a new broker,
    /// restarts the services against it and runs `sns-admin republish --service posts`: every read model ends
    /// up complete, and nothing is applied twice although most events now arrive two or three times.
    @Test func afterTheDevBrokerLosesItsDataRepublishRestoresEveryReadModel() async throws {
        try await MiniStack.with(["posts", "social", "market"]) { stack in
            try await stack.installEffectAudit()
            let token = try await stack.token(for: ObjectID.generate())
            await stack.kill9("social")  // it will miss what only the lost broker held
            for index in 0..<10 { #expect(await stack.createPost(token: token, title: "first-\(index)") != nil) }
            try await eventually("the first posts published to the first broker", guard: 120) {
                try await stack.pendingOutboxRows() == 0
            }

            try await stack.replaceBroker()
            var gap: [String] = []
            for index in 0..<10 {
                if let postId = await stack.createPost(token: token, title: "gap-\(index)") { gap.append(postId) }
            }
            #expect(gap.count == 10, "writes while the broker is gone are answered 200")
            #expect(try await stack.pendingOutboxRows() == 10)

            // What an operator does: restart the services against the new broker, then republish.
            await stack.stop("posts")
            await stack.stop("market")
            for service in ["posts", "market", "social"] { try await stack.restart(service) }
            let republish = try await stack.runAdmin(["republish", "--service", "posts", "--json"])
            #expect(republish.status == 0, "\(republish.stderr)")

            try await stack.waitDrained()
            let stored = try await stack.storedPosts()
            #expect(stored.count == 20)
            try await expectEveryPostAppliedOnce(stack, stored: stored)
        }
    }

    /// A consumer dies after its effect committed but before its Kafka offset commit: social's effect is held
    /// on a table lock, the broker goes away, the lock is released (the effect and its processed record
    /// commit), and social is killed — its offset commit could not reach the broker. Restarted, it gets the
    /// event again, recognises it and does not apply it a second time.
    @Test func aConsumerKilledBetweenItsEffectAndItsOffsetCommitDoesNotApplyTheRedeliveryAgain() async throws {
        try await MiniStack.with(["posts", "social"]) { stack in
            let groups = ["social-projections"]
            try await stack.installEffectAudit(consumers: groups)
            let token = try await stack.token(for: ObjectID.generate())
            #expect(await stack.createPost(token: token, title: "warm-up") != nil)
            try await stack.waitDrained(groups: groups)

            let postId: String? = try await stack.postgres.withConnection { lock in
                try await lock.query("BEGIN", logger: TestEnvironment.logger)
                try await lock.query("LOCK TABLE social.posts IN EXCLUSIVE MODE", logger: TestEnvironment.logger)
                let postId = await stack.createPost(token: token, title: "held")
                try await eventually("social's consumer blocked inside its transaction", guard: 120) {
                    try await stack.integer(
                        """
                        SELECT count(*)::int FROM pg_locks WHERE relation = 'social.posts'::regclass AND NOT granted
                        """) > 0
                }
                try await stack.brokerOutage(true)
                try await lock.query("COMMIT", logger: TestEnvironment.logger)
                return postId
            }
            let held = try #require(postId)
            try await eventually("social's effect committed", guard: 60) {
                try await stack.effectApplications()["social-projections"]?[held] == 1
            }
            #expect(
                try await stack.integer(
                    """
                    SELECT count(*)::int FROM social.processed_events p JOIN posts.outbox o ON o.event_id = p.event_id
                    WHERE p.consumer = 'social-projections' AND o.partition_key = \(held)
                    """) == 1, "its processed record committed with the effect")
            await stack.kill9("social")

            try await stack.brokerOutage(false)
            try await stack.restart("social")
            try await stack.waitDrained(groups: groups)
            let duplicates = try await stack.metric(
                "social", #"sns_consumer_duplicates_total{consumer="social-projections"}"#)
            #expect(duplicates >= 1, "the restarted consumer received the event again and skipped it")
            #expect(try await stack.effectApplications()["social-projections"]?[held] == 1, "applied once")
        }
    }

    /// Every stored post reached every consumer, and each consumer's effect ran exactly once for each.
    func expectEveryPostAppliedOnce(
        _ stack: MiniStack, stored: Set<String>, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let applications = try await stack.effectApplications()
        for consumer in MiniStack.postConsumers {
            let seen = try await stack.postsSeen(by: consumer)
            #expect(
                seen == stored, "\(consumer) has every post (missing \(stored.subtracting(seen).count))",
                sourceLocation: sourceLocation)
            let counts = applications[consumer] ?? [:]
            let twice = counts.filter { $0.value != 1 }
            #expect(
                Set(counts.keys) == stored, "\(consumer)'s effect ran for every post", sourceLocation: sourceLocation)
            #expect(
                twice.isEmpty, "\(consumer) applied \(twice.count) events more than once: \(twice)",
                sourceLocation: sourceLocation)
        }
    }
}
