import Foundation

/// What `seed` leaves for `load`: the gateway, the product the posts live under, and every seeded user with a
/// long-lived access token (start the stack with `SNS_ACCESS_TOKEN_TTL=86400`; bench/mixed-workload.sh does).
/// The file holds live tokens of bench accounts: it stays in the git-ignored `.local/`.
struct Scenario: Codable {
    struct User: Codable, Sendable {
        var id: String
        var nick: String
        var token: String
        var follows: Int
    }
    var gateway: String
    var apiKey: String
    var productId: String
    var seededAt: String
    var posts: Int
    var follows: Int
    var users: [User]

    static func load(_ path: String) throws -> Scenario {
        try JSONDecoder().decode(Scenario.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func save(_ path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(self).write(to: url, options: .atomic)
    }
}
