import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Synchronization
import Testing

/// What an operator does to a running stack — kill a replica, restart every service, lose the database, lose the
/// broker — tried through the gateway against the real processes of `./sns test`'s stack (posts and social run
/// several replicas there). They run alone, after the rest of the suite (`./sns test` runs them as its second
/// part), one after the other. None waits for a time to pass: each waits for a state, with a hang guard.
@Suite("Resilience", .serialized, .enabled(if: TestStack.isResilienceRun, "run by ./sns test after the suite"))
struct ResilienceTests {
    /// Posts and reads with `workers` concurrent clients until `stop` says so; every answer is recorded.
    final class Load: Sendable {
        struct Outcome: Sendable {
            let request: String
            let answer: Probe.Answer
        }
        private let state = Mutex<(outcomes: [Outcome], acknowledged: [String], stopped: Bool)>(([], [], false))

        var completed: Int { state.withLock { $0.outcomes.count } }
        var outcomes: [Outcome] { state.withLock { $0.outcomes } }
        /// Posts whose creation was answered 200: each must exist afterwards.
        var acknowledged: [String] { state.withLock { $0.acknowledged } }
        func stop() { state.withLock { $0.stopped = true } }
        var isStopped: Bool { state.withLock { $0.stopped } }

        func record(_ request: String, _ answer: Probe.Answer, createdPost: String? = nil) {
            state.withLock {
                $0.outcomes.append(Outcome(request: request, answer: answer))
                if let createdPost { $0.acknowledged.append(createdPost) }
            }
        }

        /// One client's loop: create a post, read it back, read the feed, read its profile, repeat.
        func run(session: AppSession, gateway: GatewayClient, worker: Int) async {
            let base = gateway.baseURL.absoluteString
            var round = 0
            while !isStopped {
                round += 1
                let headers = ["SesacKey": gateway.apiKey, "Authorization": await session.accessToken]
                let created = await Probe.call(
                    "POST", URL(string: base + "/v1/posts")!, headers: headers,
                    json:
                        ##"{"title":"load \##(worker)-\##(round)","content":"#resilience","product_id":"resilience"}"##,
                    timeout: 120)
                var postId: String?
                if case .status(200, let body) = created {
                    postId = (try? JSONObject(Array(body.utf8)))?.string("post_id")
                }
                record("POST /v1/posts", created, createdPost: postId)
                if let postId {
                    record(
                        "GET /v1/posts/{id}",
                        await Probe.call(
                            "GET", URL(string: base + "/v1/posts/\(postId)")!, headers: headers, timeout: 120))
                }
                record(
                    "GET /v1/posts",
                    await Probe.call(
                        "GET", URL(string: base + "/v1/posts?limit=5&product_id=resilience")!, headers: headers,
                        timeout: 120))
                record(
                    "GET /v1/users/me/profile",
                    await Probe.call(
                        "GET", URL(string: base + "/v1/users/me/profile")!, headers: headers, timeout: 120))
            }
        }
    }

    /// Runs `body` while `workers` clients load the stack; returns the load once they stopped.
    static func underLoad(workers: Int, _ body: @Sendable (Load) async throws -> Void) async throws -> Load {
        let gateway = try GatewayClient()
        var sessions: [AppSession] = []
        for _ in 0..<workers { sessions.append(try await AppSession.signUp(gateway)) }
        let load = Load()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (worker, session) in sessions.enumerated() {
                group.addTask { await load.run(session: session, gateway: gateway, worker: worker) }
            }
            do { try await body(load) } catch {
                load.stop()
                throw error
            }
            load.stop()
            try await group.waitForAll()
        }
        return load
    }

    /// Every post acknowledged with 200 can be read back through the gateway.
    static func expectAcknowledgedPostsExist(_ load: Load) async throws {
        let gateway = try GatewayClient()
        let reader = try await AppSession.signUp(gateway)
        for postId in load.acknowledged {
            let reply = try await reader.send("GET", "/v1/posts/\(postId)")
            #expect(reply.status == 200, "acknowledged post \(postId) is gone: \(reply.status) \(reply.text)")
        }
    }

    static func waitUntil(_ what: String, limit: Duration = .seconds(120), _ check: () async throws -> Bool)
        async throws
    {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while ContinuousClock.now < deadline {
            if try await check() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("not reached within \(limit) (a hang guard): \(what)")
        throw TestStack.StackError("gave up waiting: \(what)")
    }

    /// Every replica answers `/ready` 200.
    static func waitUntilAllReady() async throws {
        for (service, replica) in TestStack.allReplicas() {
            let url = try TestStack.url(service, replica: replica).appendingPathComponent("ready")
            try await waitUntil("\(TestStack.processName(service, replica: replica)) ready") {
                await Probe.call("GET", url, timeout: 5).code == 200
            }
        }
    }

    @Test func killingOnePostsReplicaUnderLoadLosesNoAcknowledgedWrite() async throws {
        try #require(TestStack.replicas("posts") >= 2, "the test stack runs several posts replicas")
        let workers = 8
        let victim = TestStack.processName("posts", replica: 2)
        let pid = try TestStack.pid(victim)
        let before = Mutex(0)
        let load = try await Self.underLoad(workers: workers) { load in
            try await Self.waitUntil("the load is under way") { load.completed >= 40 }
            before.withLock { $0 = load.completed }
            #expect(kill(pid, SIGKILL) == 0)
            try await Self.waitUntil("\(victim) is gone") { !TestStack.isAlive(pid) }
            // Long enough for every client to go through the gateway many times while the replica is missing.
            let target = load.completed + 30 * workers
            try await Self.waitUntil("the load went on after the kill") { load.completed >= target }
        }
        let outcomes = load.outcomes
        let unanswered = outcomes.filter {
            if case .none = $0.answer { !$0.answer.wasCutOff } else { false }
        }
        #expect(unanswered.isEmpty, "requests without an answer: \(unanswered.prefix(3))")
        let failed = outcomes.filter { $0.answer.code != 200 }
        // Only what was inside the killed process may fail (one request per client at most): as the gateway's own
        // 502, or cut off mid-body when the kill came while the replica was sending its answer. Everything else
        // went to the other replicas.
        #expect(failed.count <= workers, "\(failed.count) failures: \(failed.prefix(5))")
        #expect(failed.allSatisfy { $0.answer.code == 502 || $0.answer.wasCutOff }, "\(failed.prefix(5))")
        #expect(outcomes.count - before.withLock { $0 } > 30 * workers)
        try await Self.expectAcknowledgedPostsExist(load)
        try await TestStack.sns(["restart", "posts"])  // brings the killed replica back
        try await Self.waitUntilAllReady()
    }

    @Test func aRollingRestartOfEveryServiceUnderLoadFailsNoRequest() async throws {
        let services = SystemCatalog.services.map(\.name)
        let load = try await Self.underLoad(workers: 6) { load in
            try await Self.waitUntil("the load is under way") { load.completed >= 40 }
            try await TestStack.sns(["restart"] + services)
        }
        let failed = load.outcomes.filter { $0.answer.code != 200 }
        #expect(failed.isEmpty, "\(failed.count) of \(load.completed) requests failed: \(failed.prefix(5))")
        try await Self.expectAcknowledgedPostsExist(load)
        try await Self.waitUntilAllReady()
        try await Self.expectEveryConsumerGroupDrains()
    }

    /// After a restart every consumer group is back and consuming: new events on the users, follows and posts topics
    /// (a sign-up, a follow, a post), then `sns-admin lag --check` until every group of the catalog has committed
    /// to the end of every topic it reads (offsets are committed about once a second, decision 0030).
    static func expectEveryConsumerGroupDrains() async throws {
        let gateway = try GatewayClient()
        let (follower, author) = (try await AppSession.signUp(gateway), try await AppSession.signUp(gateway))
        let authorId = await author.userId
        let followed = try await follower.send("POST", "/v1/follow/\(authorId)")
        #expect(followed.status == 200, "\(followed.text)")
        let posted = try await author.send(
            "POST", "/v1/posts", json: #"{"title":"after the restart","product_id":"resilience"}"#)
        #expect(posted.status == 200, "\(posted.text)")
        var last = AdminRun(status: -1, stdout: "", stderr: "")
        do {
            try await waitUntil("every consumer group drained") {
                last = try await AdminProcess.run(
                    ["lag", "--check"], databaseURL: try TestEnvironment.databaseURL(),
                    brokers: try TestEnvironment.kafkaBrokers())
                return last.status == 0
            }
        } catch {
            Issue.record("sns-admin lag: \(last.stdout) \(last.stderr)")
            throw error
        }
    }

    /// Longer than PostgresNIO's pools keep retrying before their circuit breaker trips (a minute of failed
    /// connection attempts with none open): afterwards a pool's next attempt can be most of a minute away, and a
    /// service that kept such a pool answered 503 long after it reported ready (decision 0031).
    static let outageOutlastingThePoolsBreaker: Duration = .seconds(75)

    @Test func withTheDatabaseStoppedReadinessAndWritesAnswer503PromptlyAndAllRecover() async throws {
        let gateway = try GatewayClient()
        let session = try await AppSession.signUp(gateway)
        let headers = ["SesacKey": gateway.apiKey, "Authorization": await session.accessToken]
        let posts = URL(string: gateway.baseURL.absoluteString + "/v1/posts")!
        let profile = URL(string: gateway.baseURL.absoluteString + "/v1/users/me/profile")!
        let body = #"{"title":"while the database is away","product_id":"resilience"}"#
        try await TestStack.lib("stop_postgres")
        let stopped = ContinuousClock.now
        do {
            for (service, replica) in TestStack.allReplicas() {
                let url = try TestStack.url(service, replica: replica).appendingPathComponent("ready")
                try await Self.waitUntil("\(service) #\(replica) reports the database down") {
                    let started = ContinuousClock.now
                    let answer = await Probe.call("GET", url, timeout: 10)
                    let took = ContinuousClock.now - started
                    #expect(took < .seconds(2), "/ready of \(service) #\(replica) took \(took)")
                    guard case .status(let code, let text) = answer else { return false }
                    return code == 503 && text.contains(#""database":false"#)
                }
            }
            // A write during the outage gets 503 (at the latest once the database watch noticed: the transaction
            // deadline bounds one that was already queued), never a hang or a 5xx of the gateway's.
            try await Self.waitUntil("a write is answered 503") {
                await Probe.call("POST", posts, headers: headers, json: body, timeout: 40).code == 503
            }
            // Requests keep arriving through the outage, as they would from the apps.
            while ContinuousClock.now - stopped < Self.outageOutlastingThePoolsBreaker {
                let answer = await Probe.call("POST", posts, headers: headers, json: body, timeout: 10)
                #expect(answer.code == 503, "\(answer)")
                _ = await Probe.call("GET", profile, headers: headers, timeout: 10)
                try await Task.sleep(for: .seconds(1))
            }
        } catch {
            try? await TestStack.lib("start_postgres")
            throw error
        }
        try await TestStack.lib("start_postgres")
        try await Self.waitUntilAllReady()
        // Ready means ready: the first requests after it succeed, on every service's pools.
        let write = await Probe.call("POST", posts, headers: headers, json: body, timeout: 60)
        #expect(write.code == 200, "the first write after every replica reported ready: \(write)")
        let read = await Probe.call("GET", profile, headers: headers, timeout: 60)
        #expect(read.code == 200, "the first profile read after every replica reported ready: \(read)")
        try await Self.waitUntil("writes succeed again") {
            await Probe.call("POST", posts, headers: headers, json: body, timeout: 60).code == 200
        }
    }

    @Test func withTheBrokerUnreachableSIGTERMEndsEveryServicePromptlyAndTheOutboxKeepsItsRows() async throws {
        let gateway = try GatewayClient()
        let session = try await AppSession.signUp(gateway)
        let headers = ["SesacKey": gateway.apiKey, "Authorization": await session.accessToken]
        let broker = try TestStack.pid("broker")
        let marker = TestEnvironment.unique("outbox")
        #expect(kill(broker, SIGSTOP) == 0)
        var resumed = false
        defer { if !resumed { kill(broker, SIGCONT) } }

        // A write commits with its outbox row; its answer waits for projections that cannot get the event.
        let posts = URL(string: gateway.baseURL.absoluteString + "/v1/posts")!
        let write = Task {
            await Probe.call(
                "POST", posts, headers: headers,
                json: #"{"title":"\#(marker)","product_id":"resilience"}"#, timeout: 120)
        }
        let pendingRow = try await TestEnvironment.withDatabase { db -> Int64 in
            var id: Int64?
            try await Self.waitUntil("the write's outbox row is pending") {
                let rows = try await db.query(
                    "SELECT id FROM posts.outbox WHERE published_at IS NULL AND payload::text LIKE \("%" + marker + "%")",
                    logger: TestEnvironment.logger)
                for try await value in rows.decode(Int64.self) { id = value }
                return id != nil
            }
            return id!
        }

        // SIGTERM to every replica at once; each must be gone within 10 s although the broker does not answer.
        let processes = try TestStack.allReplicas().map { service, replica in
            (
                TestStack.processName(service, replica: replica),
                try TestStack.pid(
                    TestStack.processName(service, replica: replica))
            )
        }
        let started = ContinuousClock.now
        for (_, pid) in processes { kill(pid, SIGTERM) }
        for (name, pid) in processes {
            try await Self.waitUntil("\(name) exits after SIGTERM", limit: .seconds(30)) { !TestStack.isAlive(pid) }
            let took = ContinuousClock.now - started
            #expect(took < .seconds(10), "\(name) took \(took) to exit after SIGTERM with the broker away")
        }
        _ = await write.value  // answered by the gateway (502) once posts was gone: never left hanging

        let stillPending = try await TestEnvironment.withDatabase { db -> Bool in
            let rows = try await db.query(
                "SELECT published_at IS NULL FROM posts.outbox WHERE id = \(pendingRow)", logger: TestEnvironment.logger
            )
            var pending = false
            for try await value in rows.decode(Bool.self) { pending = value }
            return pending
        }
        #expect(stillPending, "the unpublished outbox row was lost or marked published without the broker")

        kill(broker, SIGCONT)
        resumed = true
        try await TestStack.sns(["restart"] + SystemCatalog.services.map(\.name))
        try await Self.waitUntilAllReady()
        // The row is published after all, and the event reaches the other services (social counts the post).
        try await TestEnvironment.withDatabase { db in
            try await Self.waitUntil("the pending row is published") {
                let rows = try await db.query(
                    "SELECT published_at IS NOT NULL FROM posts.outbox WHERE id = \(pendingRow)",
                    logger: TestEnvironment.logger)
                var published = false
                for try await value in rows.decode(Bool.self) { published = value }
                return published
            }
        }
    }
}
