import Foundation
import PostgresNIO
import SNSKafka
import SNSPlatform
import SNSTestSupport
import Testing

/// Posts kept ready to send (decision 0014) must always equal posts assembled afresh from the tables, whatever
/// happened before: a property over random sequences of writes (HTTP) and events (published to the broker, applied
/// by posts' own consumer), checked after every step, and again after `sns-admin rebuild posts-read-models`.
///
/// Runs on a private mini-stack (its own database and broker), so the checks cover every row there and the
/// rebuild disturbs nobody. A failure names the seed and the step; the same seed replays the same sequence.
@Suite("Materialised posts", .serialized)
struct MaterialisedPostsTests {
    @Test(arguments: [UInt64(20261124), 7, 42])
    func readyPostsAndFeedsEqualFreshAssemblyAfterRandomWritesEventsAndARebuild(seed: UInt64) async throws {
        try await MiniStack.with(["posts"]) { stack in
            try await withProducer(stack) { producer in
                var run = try await RandomRun(stack: stack, producer: producer, seed: seed)
                for step in 0..<70 {
                    let what = try await run.step()
                    try await expectInvariants(stack, context: "seed \(seed), step \(step) (\(what))")
                }
                try await run.registerEveryone()
                try await expectInvariants(stack, context: "seed \(seed), before the rebuild")
                #expect(run.succeeded > 20, "the sequence did real work: \(run.succeeded) writes answered 200")
                let g2Posts = try await stack.integer("SELECT count(*)::int FROM posts.posts WHERE app_id IS NOT NULL")
                #expect(g2Posts > 0, "the sequence wrote G2 posts too")

                let before = try await stack.rebuildSummary("posts-read-models")
                let digestsBefore = try await digests(stack)
                await stack.stop("posts")
                let rebuild = try await stack.runAdmin([
                    "rebuild", "posts-read-models", "--json", "--join-timeout", "30",
                ])
                #expect(rebuild.status == 0, "\(rebuild.stderr)")
                try await stack.restart("posts")
                let events = run.events
                try await eventually("posts-read-models caught up", guard: 240) {
                    try await RandomRun.applied(events, on: stack)
                }
                try await expectInvariants(stack, context: "seed \(seed), after the rebuild")
                let after = try await stack.rebuildSummary("posts-read-models")
                #expect(try await digests(stack) == digestsBefore, "table by table")
                #expect(after.rows == before.rows)
                #expect(after.checksum == before.checksum, "documents and feed entries come out identical")
            }
        }
    }

    /// Every stored document equals `posts.post_document` of its row (a G2 post's G2 twin `g2_document` of that), and
    /// the feed entries are exactly the (follower, post of a followee) pairs, with each post's current product. Both
    /// hold in any snapshot.
    private func expectInvariants(_ stack: MiniStack, context: String) async throws {
        let stale = try await stack.strings(
            """
            SELECT p.post_id || ': ' || p.doc || ' <> ' || posts.post_document(p) FROM posts.posts p
            WHERE p.doc IS DISTINCT FROM posts.post_document(p) LIMIT 3
            """)
        #expect(stale.isEmpty, "\(context): stale documents\n\(stale.joined(separator: "\n"))")
        // The G2 document (decision 0021) follows the G1 one and the row; only G2 posts keep one (migration 111).
        let staleG2 = try await stack.strings(
            """
            SELECT p.post_id || ': ' || coalesce(p.doc_g2, 'none') FROM posts.posts p
            WHERE p.doc_g2 IS DISTINCT FROM
                  CASE WHEN p.app_id IS NOT NULL THEN posts.g2_document(posts.post_document(p), p) END
            LIMIT 3
            """)
        #expect(staleG2.isEmpty, "\(context): stale G2 documents\n\(staleG2.joined(separator: "\n"))")
        let feed = try await stack.strings(
            """
            WITH expected AS (
                SELECT f.follower_id, p.seq, p.post_id, p.user_id AS author_id, p.product_id
                FROM posts.follows f JOIN posts.posts p ON p.user_id = f.followee_id),
            actual AS (SELECT follower_id, seq, post_id, author_id, product_id FROM posts.feed_entries)
            SELECT 'missing ' || row(e.*)::text FROM (SELECT * FROM expected EXCEPT SELECT * FROM actual) e
            UNION ALL
            SELECT 'extra ' || row(a.*)::text FROM (SELECT * FROM actual EXCEPT SELECT * FROM expected) a
            LIMIT 5
            """)
        #expect(feed.isEmpty, "\(context): feed entries differ\n\(feed.joined(separator: "\n"))")
    }

    /// md5 of each table of the read model, for a failure message that names the table that differs.
    private func digests(_ stack: MiniStack) async throws -> [String: String] {
        var result: [String: String] = [:]
        for table in ["posts.users", "posts.follows", "posts.buyers", "posts.feed_entries", "posts.post_documents"] {
            result[table] = try await stack.strings(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM \(table) t
                        """)
            ).first
        }
        return result
    }

    private func withProducer(_ stack: MiniStack, _ body: @Sendable (KafkaProducer) async throws -> Void) async throws {
        let configuration = KafkaConfiguration(
            bootstrapServers: await stack.brokerAddress, clientId: "materialised-posts-tests")
        let producer = try KafkaProducer(configuration: configuration, logger: TestEnvironment.logger)
        try await withBackgroundWork(
            [{ try await producer.run() }], name: "MaterialisedPostsTests",
            beforeCancel: { await producer.shutdown() }
        ) {
            try await body(producer)
        }
    }
}

/// One random sequence: a handful of users (one acts before their registration event), posts in two products,
/// and every kind of change that shows in a post's JSON or in someone's following feed.
private struct RandomRun {
    let stack: MiniStack
    let producer: KafkaProducer
    var random: SeededGenerator
    var users: [(id: String, token: String)] = []
    var registered: Set<String> = []
    var posts: [(id: String, owner: String)] = []
    var comments: [(id: String, post: String, owner: String)] = []
    var events: [UUID] = []
    var succeeded = 0

    init(stack: MiniStack, producer: KafkaProducer, seed: UInt64) async throws {
        self.stack = stack
        self.producer = producer
        random = SeededGenerator(seed: seed)
        for _ in 0..<5 {
            let id = ObjectID.generate()
            users.append((id, try await stack.token(for: id)))
        }
        // All but the last register now; the last acts first and registers later.
        for user in users.dropLast() { try await register(user.id) }
    }

    mutating func step() async throws -> String {
        let user = users.randomElement(using: &random)!
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<18:
            let product = ["mp_a", "mp_b"].randomElement(using: &random)!
            let price = Bool.random(using: &random) ? #","price":\#(Int.random(in: 1...9, using: &random) * 1000)"# : ""
            let tag = "#tag\(Int.random(in: 0...2, using: &random))"
            // A third are G2 posts (decision 0021), the only ones with a ready G2 document (migration 111).
            let g2 = Int.random(in: 0..<3, using: &random) == 0
            let reply =
                g2
                ? try await send(
                    "POST", "/v1/posts", user,
                    #"{"category":"\#(product)","title":"t","content":"hi \#(tag)"\#(price)}"#,
                    headers: ["ProductId": MiniStack.g2App])
                : try await send(
                    "POST", "/v1/posts", user,
                    #"{"product_id":"\#(product)","title":"t","content":"hi \#(tag)"\#(price)}"#)
            if reply.status == 200, let id = try? reply.json.string("post_id") { posts.append((id, user.id)) }
            return g2 ? "create G2 post" : "create post"
        case 18..<26:
            guard let post = posts.randomElement(using: &random),
                let owner = users.first(where: { $0.id == post.owner })
            else { return "no post" }
            let body = [
                #"{"title":"edited"}"#, #"{"product_id":"mp_b","content":"moved #tag9"}"#,
                #"{"product_id":"mp_a","price":null}"#,
                #"{"content5":"x","files":[]}"#,
            ].randomElement(using: &random)!
            _ = try await send("PUT", "/v1/posts/\(post.id)", owner, body)
            return "edit post"
        case 26..<30:
            guard let index = posts.indices.randomElement(using: &random),
                let owner = users.first(where: { $0.id == posts[index].owner })
            else { return "no post" }
            _ = try await send("DELETE", "/v1/posts/\(posts[index].id)", owner, nil)
            posts.remove(at: index)
            return "delete post"
        case 30..<48:
            guard let post = posts.randomElement(using: &random) else { return "no post" }
            let path = Bool.random(using: &random) ? "like" : "like-2"
            _ = try await send(
                "POST", "/v1/posts/\(post.id)/\(path)", user, #"{"like_status":\#(Bool.random(using: &random))}"#)
            return "\(path)"
        case 48..<60:
            guard let post = posts.randomElement(using: &random) else { return "no post" }
            let reply = try await send(
                "POST", "/v1/posts/\(post.id)/comments", user,
                #"{"content":"c\#(Int.random(in: 0...99, using: &random))"}"#)
            if reply.status == 200, let id = try? reply.json.string("comment_id") {
                comments.append((id, post.id, user.id))
            }
            return "comment"
        case 60..<64:
            guard let comment = comments.randomElement(using: &random),
                let owner = users.first(where: { $0.id == comment.owner })
            else { return "no comment" }
            _ = try await send(
                "PUT", "/v1/posts/\(comment.post)/comments/\(comment.id)", owner, #"{"content":"edited"}"#)
            return "edit comment"
        case 64..<67:
            guard let index = comments.indices.randomElement(using: &random),
                let owner = users.first(where: { $0.id == comments[index].owner })
            else { return "no comment" }
            _ = try await send("DELETE", "/v1/posts/\(comments[index].post)/comments/\(comments[index].id)", owner, nil)
            comments.remove(at: index)
            return "delete comment"
        case 67..<75:
            let image: String? =
                Bool.random(using: &random) ? "profiles/\(Int.random(in: 0...9, using: &random)).jpg" : nil
            try await publish(
                UserUpdated(
                    userId: user.id, nick: "nick\(Int.random(in: 0...999, using: &random))", phoneNum: nil,
                    birthDay: nil, profileImage: image, updatedAt: Date()), key: user.id)
            return "user-updated"
        case 75..<85:
            let other = users.randomElement(using: &random)!
            guard other.id != user.id else { return "self follow" }
            try await publish(
                UserFollowed(edge: FollowEdge(followerId: user.id, followeeId: other.id, at: Date())), key: user.id)
            return "user-followed"
        case 85..<90:
            let other = users.randomElement(using: &random)!
            try await publish(
                UserUnfollowed(edge: FollowEdge(followerId: user.id, followeeId: other.id, at: Date())), key: user.id)
            return "user-unfollowed"
        case 90..<95:
            let postId = posts.randomElement(using: &random)?.id ?? ObjectID.generate()
            try await publish(
                PurchaseCompleted(
                    paymentId: ObjectID.generate(), impUid: "imp_\(UUID())", merchantUid: "m_\(UUID())",
                    buyerId: user.id, postId: postId, productName: "p", price: 1000, paidAt: Date()), key: postId)
            return "purchase-completed"
        case 95..<97:
            // Rare: a withdrawal hides the user's posts, comments and likes everywhere.
            guard users.count > 3 else { return "keep users" }
            try await publish(UserWithdrawn(userId: user.id, withdrawnAt: Date()), key: user.id)
            users.removeAll { $0.id == user.id }
            return "user-withdrawn"
        default:
            try await registerEveryone()
            return "late registration"
        }
    }

    /// Registers every user who has not been registered yet (the one who acted first, at least).
    mutating func registerEveryone() async throws {
        for user in users where !registered.contains(user.id) { try await register(user.id) }
    }

    private mutating func register(_ userId: String) async throws {
        try await publish(
            UserRegistered(
                userId: userId, email: "\(userId)@example.com", nick: "u\(userId.suffix(4))", phoneNum: nil,
                birthDay: nil, profileImage: nil, registeredAt: Date().addingTimeInterval(-3600)), key: userId)
        registered.insert(userId)
    }

    private mutating func send(
        _ method: String, _ path: String, _ user: (id: String, token: String), _ json: String?,
        headers: [String: String] = [:]
    ) async throws -> GatewayClient.Reply {
        let reply = try await stack.send("posts", method, path, token: user.token, json: json, headers: headers)
        #expect(reply.status < 500, "\(method) \(path): \(reply.status) \(reply.text)")
        if reply.status == 200 { succeeded += 1 }
        return reply
    }

    /// Publishes an event as another service's relay would, and waits until posts' consumer applied it.
    private mutating func publish<P: EventPayload>(_ payload: P, key: String) async throws {
        let envelope = EventEnvelope(
            type: P.eventType.rawValue, schemaVersion: P.schemaVersion, aggregateId: key,
            producer: "materialised-posts-tests", requestId: nil, payload: payload)
        _ = try await producer.send(
            KafkaOutgoingMessage(
                topic: P.eventType.topic, key: Array(key.utf8), value: Array(try EventCoding.encoder().encode(envelope))
            ))
        events.append(envelope.eventId)
        let id = envelope.eventId
        let stack = stack
        try await eventually("event \(P.eventType.rawValue) applied", guard: 120) {
            try await stack.integer(
                "SELECT count(*)::int FROM posts.processed_events WHERE consumer = 'posts-read-models' AND event_id = \(id)"
            ) == 1
        }
    }

    /// After a rebuild: every event of the run applied again.
    static func applied(_ events: [UUID], on stack: MiniStack) async throws -> Bool {
        try await stack.integer(
            """
            SELECT count(*)::int FROM posts.processed_events WHERE consumer = 'posts-read-models' AND event_id = ANY(\(events))
            """) == events.count
    }
}
