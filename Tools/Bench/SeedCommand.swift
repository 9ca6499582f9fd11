import ArgumentParser
import Foundation

/// Seeds a social graph through the public API, the way the apps would build it: users join and log in, follow
/// one another, and write posts with hashtags and a mention. The default shape follows DeathStarBench's social
/// network, whose default graph (socfb-Reed98) has 962 users and 18 812 edges: ~1 000 users following ~19 others
/// on average, popular users followed more (Zipf weights), and ~10 000 posts by uniformly chosen authors.
struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed", abstract: "Seed users, follows and posts through the gateway.")

    @Option(help: "The gateway's base URL.") var gateway = "http://127.0.0.1:8080"
    @Option(help: "SesacKey.") var apiKey = "sns-dev-key"
    @Option var users = 1_000
    @Option var posts = 10_000
    @Option(help: "Average number of users each user follows.") var followsPerUser = 19
    @Option(help: "product_id of the seeded posts (and of the load run's reads and writes).") var productId =
        "bench-mixed"
    @Option(help: "Requests in flight while seeding.") var concurrency = 16
    @Option(help: "Random seed of the graph.") var seed: UInt64 = 1
    @Option(help: "Where the scenario file goes (keep it under .local/: it holds access tokens).") var out: String

    func run() async throws {
        let api = GatewayClient(baseURL: gateway, apiKey: apiKey, connections: concurrency)
        do {
            try await seedGraph(api)
            try await api.shutdown()
        } catch {
            try? await api.shutdown()
            throw error
        }
    }

    private func seedGraph(_ api: GatewayClient) async throws {
        let started = ContinuousClock.now
        let tag = String(UInt64(Date().timeIntervalSince1970), radix: 36)
        var rng = SplitMix64(seed: seed)
        let password = "bench-password-1"

        log("joining and logging in \(users) users (bcrypt on every call: this is the slow part)")
        let accounts = try await mapConcurrently(Array(0..<users), width: concurrency, progress: "users") {
            index -> (String, String, String) in
            let nick = "b\(tag)u\(index)", email = "\(nick)@bench.example.com"
            try await api.call(.POST, "/v1/users/join", json: ["email": email, "password": password, "nick": nick])
            let session = try await api.call(.POST, "/v1/users/login", json: ["email": email, "password": password])
            guard let id = session["user_id"] as? String, let token = session["accessToken"] as? String
            else { throw BenchError("login of \(email) returned no user_id/accessToken") }
            return (id, nick, token)
        }

        // Popularity: a random permutation of ranks, weight 1/rank^0.9.
        let ranks = Array(1...users).shuffled(using: &rng)
        let popularity = WeightedPicker(weights: ranks.map { 1 / pow(Double($0), 0.9) })
        var edges: [(Int, Int)] = []
        var outDegree = [Int](repeating: 0, count: users)
        for follower in 0..<users {
            // Out-degree: exponential around the mean, at least 1.
            let wanted = min(
                users - 1,
                max(
                    1,
                    Int(
                        (-Double(followsPerUser) * Foundation.log(Double.random(in: 0.0001..<1, using: &rng))).rounded()
                    )))
            var chosen = Set<Int>()
            var attempts = 0
            while chosen.count < wanted, attempts < wanted * 20 {
                attempts += 1
                let followee = popularity.pick(using: &rng)
                if followee != follower { chosen.insert(followee) }
            }
            outDegree[follower] = chosen.count
            edges += chosen.sorted().map { (follower, $0) }
        }
        log("following: \(edges.count) edges")
        _ = try await mapConcurrently(edges, width: concurrency, progress: "follows") { edge in
            _ = try await api.call(
                .POST, "/v1/follow/\(accounts[edge.1].0)", token: accounts[edge.0].2, accept: [200, 409])
        }

        var postPlan: [(author: Int, content: String)] = []
        for index in 0..<posts {
            let author = Int.random(in: 0..<users, using: &rng)
            let mention = accounts[popularity.pick(using: &rng)].1
            let tags = (Int.random(in: 0..<50, using: &rng), Int.random(in: 0..<200, using: &rng))
            postPlan.append(
                (author, "Seeded post \(index): a day at the bookshop #bench\(tags.0) #topic\(tags.1) with @\(mention)")
            )
        }
        log("writing \(posts) posts under product_id=\(productId)")
        let product = productId
        _ = try await mapConcurrently(postPlan, width: concurrency, progress: "posts") { plan in
            _ = try await api.call(
                .POST, "/v1/posts", token: accounts[plan.author].2,
                json: ["product_id": product, "title": "seeded", "content": plan.content])
        }

        // The following feed is built from follow events (social → posts). Wait until posts has applied them:
        // the feeds of the last 20 users who follow someone (their follows went out last) show posts.
        let waitStarted = ContinuousClock.now
        for user in outDegree.indices.filter({ outDegree[$0] > 0 }).suffix(20) {
            while true {
                let page = try await api.call(
                    .GET, "/v1/posts/feed/following?limit=1&product_id=\(product)", token: accounts[user].2)
                if let data = page["data"] as? [Any], !data.isEmpty { break }
                if ContinuousClock.now - waitStarted > .seconds(300) {
                    throw BenchError("following feeds stayed empty for 5 minutes")
                }
                try await Task.sleep(for: .milliseconds(500))
            }
        }

        let scenario = Scenario(
            gateway: gateway, apiKey: apiKey, productId: productId,
            seededAt: ISO8601DateFormatter().string(from: Date()),
            posts: posts, follows: edges.count,
            users: accounts.indices.map {
                Scenario.User(id: accounts[$0].0, nick: accounts[$0].1, token: accounts[$0].2, follows: outDegree[$0])
            }
        )
        try scenario.save(out)
        print(
            "seeded \(users) users, \(edges.count) follows, \(posts) posts in \(started.duration(to: .now)); scenario: \(out)"
        )
    }
}
