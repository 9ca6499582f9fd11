import ArgumentParser
import Foundation
import NIOCore
import NIOHTTP1

/// The request kinds of the mixed workload, in DeathStarBench social-network terms: read-home-timeline (our
/// following feed), read-user-timeline (a user's posts) and compose-post (a post with two hashtags and a mention).
enum Operation: String, CaseIterable, Sendable {
    case feed, timeline, create

    var endpoint: String {
        switch self {
        case .feed: "GET /v1/posts/feed/following"
        case .timeline: "GET /v1/posts/users/{id}"
        case .create: "POST /v1/posts"
        }
    }
}

/// `feed=60,timeline=30,create=10` → a weighted choice between operations.
struct Mix: ExpressibleByArgument, CustomStringConvertible, Sendable {
    let shares: [(Operation, Int)]

    init?(argument: String) {
        var shares: [(Operation, Int)] = []
        for part in argument.split(separator: ",") {
            let pair = part.split(separator: "=")
            guard pair.count == 2, let operation = Operation(rawValue: String(pair[0])), let share = Int(pair[1]),
                share >= 0
            else { return nil }
            shares.append((operation, share))
        }
        guard shares.contains(where: { $0.1 > 0 }) else { return nil }
        self.shares = shares
    }

    var description: String { shares.map { "\($0.0.rawValue)=\($0.1)" }.joined(separator: ",") }

    func pick(using rng: inout SplitMix64) -> Operation {
        var roll = Int.random(in: 0..<shares.reduce(0) { $0 + $1.1 }, using: &rng)
        for (operation, share) in shares {
            if roll < share { return operation }
            roll -= share
        }
        return shares[shares.count - 1].0
    }
}

/// Builds one request of the given kind for a random user of the scenario.
struct RequestFactory {
    let client: LoadClient
    let scenario: Scenario
    let pageSize: Int
    private var sequence = 0

    init(client: LoadClient, scenario: Scenario, pageSize: Int) {
        self.client = client
        self.scenario = scenario
        self.pageSize = pageSize
    }

    /// What the apps send on every call: `SesacKey` and the bare access token.
    private func call(_ method: HTTPMethod, _ path: String, token: String, json: [String: any Sendable]? = nil) throws
        -> LoadRequest
    {
        let body = try json.map { ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: $0)) }
        return try client.request(
            method, path, headers: [("SesacKey", scenario.apiKey), ("Authorization", token)], json: body)
    }

    mutating func make(_ operation: Operation, using rng: inout SplitMix64) throws -> LoadRequest {
        let users = scenario.users
        let viewer = users[Int.random(in: 0..<users.count, using: &rng)]
        let product = scenario.productId
        switch operation {
        case .feed:
            return try call(
                .GET, "/v1/posts/feed/following?next=&limit=\(pageSize)&product_id=\(product)", token: viewer.token)
        case .timeline:
            let author = users[Int.random(in: 0..<users.count, using: &rng)]
            return try call(
                .GET, "/v1/posts/users/\(author.id)?next=&limit=\(pageSize)&product_id=\(product)", token: viewer.token)
        case .create:
            sequence += 1
            let mention = users[Int.random(in: 0..<users.count, using: &rng)].nick
            let content =
                "Load post \(sequence): reading in the park #bench\(Int.random(in: 0..<50, using: &rng)) #topic\(Int.random(in: 0..<200, using: &rng)) with @\(mention)"
            return try call(
                .POST, "/v1/posts", token: viewer.token,
                json: ["product_id": product, "title": "load", "content": content])
        }
    }
}
