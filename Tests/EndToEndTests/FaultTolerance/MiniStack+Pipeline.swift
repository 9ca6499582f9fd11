import Foundation
import PostgresNIO
import SNSKafka
import SNSPlatform
import SNSTestSupport

/// What the fault-tolerance tests write and check through a `MiniStack`: posts as writes, and the
/// `sns.posts` consumers of social and market as the downstream effects.
extension MiniStack {
    static let postConsumers = ["social-projections", "market-products"]

    /// Counts how often each consumer's effect runs for a post: a BEFORE INSERT trigger on social's and
    /// market's post tables fires for every execution of their upserts (PostgreSQL fires it for each row
    /// proposed by `INSERT … ON CONFLICT`, whether it then inserts, updates or does nothing), inside the
    /// consumer's own transaction. A count of 2 would mean an event was applied twice. The trigger exists
    /// only in this private database.
    func installEffectAudit(consumers: [String] = postConsumers) async throws {
        try await execute(
            """
            CREATE TABLE public.effect_audit (
                consumer text NOT NULL, post_id text NOT NULL, applications integer NOT NULL,
                PRIMARY KEY (consumer, post_id))
            """)
        try await execute(
            """
            CREATE FUNCTION public.audit_effect() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO public.effect_audit VALUES (TG_ARGV[0], NEW.post_id, 1)
                ON CONFLICT (consumer, post_id) DO UPDATE SET applications = public.effect_audit.applications + 1;
                RETURN NEW;
            END $$
            """)
        if consumers.contains("social-projections") {
            try await execute(
                "CREATE TRIGGER effect_audit BEFORE INSERT ON social.posts FOR EACH ROW EXECUTE FUNCTION public.audit_effect('social-projections')"
            )
        }
        if consumers.contains("market-products") {
            try await execute(
                "CREATE TRIGGER effect_audit BEFORE INSERT ON market.products FOR EACH ROW EXECUTE FUNCTION public.audit_effect('market-products')"
            )
        }
    }

    /// `POST /v1/posts` as the user; the new post's id when the service answered 200, nil for any other
    /// answer or none (a killed or unreachable process).
    func createPost(token: String, title: String, productId: String = "ft_market") async -> String? {
        guard
            let reply = try? await send(
                "posts", "POST", "/v1/posts", token: token,
                json: """
                    {"title":"\(title)","content":"fault test #ft","product_id":"\(productId)","price":1000}
                    """),
            reply.status == 200
        else { return nil }
        return try? reply.json.string("post_id")
    }

    /// A request to one service as the user, with `SesacKey`.
    func send(
        _ service: String, _ method: String, _ path: String, token: String, json: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> GatewayClient.Reply {
        try await client(service).send(
            method, path, json: json, headers: headers.merging(["Authorization": token]) { $1 })
    }

    // MARK: Database reads

    func execute(_ sql: String) async throws {
        try await postgres.query(PostgresQuery(unsafeSQL: sql), logger: TestEnvironment.logger)
    }

    func strings(_ query: PostgresQuery) async throws -> [String] {
        var values: [String] = []
        for try await value in try await postgres.query(query, logger: TestEnvironment.logger).decode(String.self) {
            values.append(value)
        }
        return values
    }

    func integer(_ query: PostgresQuery) async throws -> Int {
        for try await value in try await postgres.query(query, logger: TestEnvironment.logger).decode(Int.self) {
            return value
        }
        return 0
    }

    /// Every post the posts service stored.
    func storedPosts() async throws -> Set<String> { Set(try await strings("SELECT post_id FROM posts.posts")) }

    /// `post-created` outbox rows per post.
    func outboxRows() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for key in try await strings("SELECT partition_key FROM posts.outbox WHERE event_type = 'post-created'") {
            counts[key, default: 0] += 1
        }
        return counts
    }

    func pendingOutboxRows() async throws -> Int {
        try await integer("SELECT count(*)::int FROM posts.outbox WHERE published_at IS NULL")
    }

    /// The posts each consumer's read model has.
    func postsSeen(by consumer: String) async throws -> Set<String> {
        switch consumer {
        case "social-projections": Set(try await strings("SELECT post_id FROM social.posts"))
        case "market-products": Set(try await strings("SELECT post_id FROM market.products"))
        default: []
        }
    }

    /// How often each consumer's effect ran, per post.
    func effectApplications() async throws -> [String: [String: Int]] {
        var result: [String: [String: Int]] = [:]
        let rows = try await postgres.query(
            "SELECT consumer, post_id, applications FROM public.effect_audit", logger: TestEnvironment.logger)
        for try await (consumer, postId, applications) in rows.decode((String, String, Int).self) {
            result[consumer, default: [:]][postId] = applications
        }
        return result
    }

    // MARK: The broker's view

    /// True when posts' outbox has nothing pending and every consumer group has committed every offset of
    /// `sns.posts` (a consumer commits a message only after applying or skipping it, so nothing is left to do).
    func drained(groups: [String] = postConsumers) async throws -> Bool {
        guard try await pendingOutboxRows() == 0 else { return false }
        let admin = try brokerAdmin()
        let high = try await admin.watermarks(topic: Topic.posts).mapValues(\.high)
        for group in groups {
            let committed = try await admin.committedOffsets(
                group: group, topic: Topic.posts, partitions: Int32(high.count))
            for (partition, end) in high where (committed[partition] ?? 0) < end { return false }
        }
        return true
    }

    /// How many messages `sns.posts` holds (more than the posts stored when a relay sent some twice).
    func publishedPostEvents() async throws -> Int64 {
        try await brokerAdmin().watermarks(topic: Topic.posts).values.reduce(0) { $0 + $1.high - $1.low }
    }

    func waitDrained(groups: [String] = postConsumers) async throws {
        try await eventually("every post event published and consumed by \(groups)", guard: 240) {
            (try? await self.drained(groups: groups)) ?? false
        }
    }

    // MARK: Read-model summaries

    /// `sns-admin rebuild <projection> --dry-run`: the read model's row counts and checksum, as the rebuild
    /// compares them.
    func rebuildSummary(_ projection: String) async throws -> (rows: [String: Int], checksum: String) {
        let run = try await runAdmin(["rebuild", projection, "--dry-run", "--json"])
        guard run.status == 0,
            let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
            let before = json["before"] as? [String: Any],
            let rows = before["rows"] as? [String: Int], let checksum = before["checksum"] as? String
        else { throw MiniStackError("rebuild --dry-run: \(run.stdout) \(run.stderr)") }
        return (rows, checksum)
    }
}
