import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// SQL over the social schema: the follow write model and the profile reads. Every statement binds its values.
struct SocialStore: Sendable {
    let client: DatabasePool
    let schema: SQLIdentifier

    /// Lists in a profile are bounded: the most recent first, at most this many (counts are exact).
    static let listLimit = 1_000

    struct User: Sendable {
        var userId: String
        var email: String?
        var nick: String
        var phoneNum: String?
        var birthDay: String?
        var profileImage: String?
        var withdrawn: Bool
    }

    func user(_ userId: String, on connection: PostgresConnection? = nil, logger: Logger) async throws -> User? {
        let s = schema
        let query: PostgresQuery = """
            SELECT user_id, email, nick, phone_num, birth_day, profile_image, withdrawn_at IS NOT NULL
            FROM \(table: s, "users") WHERE user_id = \(userId)
            """
        let rows: PostgresRowSequence
        if let connection {
            rows = try await connection.query(query, logger: logger)
        } else {
            rows = try await client.query(query, logger: logger)
        }
        for try await row in rows.decode((String, String?, String, String?, String?, String?, Bool).self) {
            return User(
                userId: row.0, email: row.1, nick: row.2, phoneNum: row.3, birthDay: row.4, profileImage: row.5,
                withdrawn: row.6)
        }
        return nil
    }

    func isActive(userId: String, logger: Logger) async throws -> Bool {
        let s = schema
        let rows = try await client.query(
            "SELECT withdrawn_at IS NULL FROM \(table: s, "users") WHERE user_id = \(userId)", logger: logger)
        for try await active in rows.decode(Bool.self) { return active }
        return true
    }

    // MARK: Follows

    enum FollowConflict: Error { case alreadyFollowing }

    func insertFollow(follower: String, followee: String, at: Date, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        let s = schema
        do {
            try await connection.query(
                """
                INSERT INTO \(table: s, "follows") (follower_id, followee_id, created_at) VALUES (\(follower), \(followee), \(at))
                """, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw FollowConflict.alreadyFollowing
        }
    }

    /// Returns whether there was an edge to delete.
    func deleteFollow(follower: String, followee: String, on connection: PostgresConnection, logger: Logger)
        async throws -> Bool
    {
        let s = schema
        let rows = try await connection.query(
            """
            DELETE FROM \(table: s, "follows") WHERE follower_id = \(follower) AND followee_id = \(followee) RETURNING 1
            """, logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    // MARK: Profile

    /// Followers and following (active users, newest edge first, bounded), the user's post ids (newest first,
    /// bounded) and the exact counts, in one round trip.
    struct Counts: Sendable, Equatable {
        var posts = 0, comments = 0, likes = 0, followers = 0, following = 0
    }

    func profileLists(of userId: String, logger: Logger) async throws -> (
        followers: [UserJSON], following: [UserJSON], posts: [String], counts: Counts
    ) {
        let s = schema
        let limit = Self.listLimit
        let rows = try await client.query(
            """
            SELECT
              coalesce((SELECT json_agg(json_build_object('user_id', x.user_id, 'nick', x.nick, 'profileImage', x.profile_image) ORDER BY x.created_at DESC)
                        FROM (SELECT u.user_id, u.nick, u.profile_image, f.created_at FROM \(table: s, "follows") f
                              JOIN \(table: s, "users") u ON u.user_id = f.follower_id AND u.withdrawn_at IS NULL
                              WHERE f.followee_id = \(userId) ORDER BY f.created_at DESC LIMIT \(limit)) x), '[]')::text,
              coalesce((SELECT json_agg(json_build_object('user_id', x.user_id, 'nick', x.nick, 'profileImage', x.profile_image) ORDER BY x.created_at DESC)
                        FROM (SELECT u.user_id, u.nick, u.profile_image, f.created_at FROM \(table: s, "follows") f
                              JOIN \(table: s, "users") u ON u.user_id = f.followee_id AND u.withdrawn_at IS NULL
                              WHERE f.follower_id = \(userId) ORDER BY f.created_at DESC LIMIT \(limit)) x), '[]')::text,
              ARRAY(SELECT post_id FROM \(table: s, "posts") WHERE user_id = \(userId) AND deleted_at IS NULL
                    ORDER BY created_at DESC LIMIT \(limit)),
              (SELECT count(*) FROM \(table: s, "posts") WHERE user_id = \(userId) AND deleted_at IS NULL)::int,
              (SELECT count(*) FROM \(table: s, "comments") c WHERE c.user_id = \(userId) AND c.deleted_at IS NULL
                 AND NOT EXISTS (SELECT 1 FROM \(table: s, "posts") p WHERE p.post_id = c.post_id AND p.deleted_at IS NOT NULL))::int,
              (SELECT count(*) FROM \(table: s, "likes") l WHERE l.user_id = \(userId) AND l.kind = 'like' AND l.active
                 AND NOT EXISTS (SELECT 1 FROM \(table: s, "posts") p WHERE p.post_id = l.post_id AND p.deleted_at IS NOT NULL))::int,
              (SELECT count(*) FROM \(table: s, "follows") f JOIN \(table: s, "users") u ON u.user_id = f.follower_id AND u.withdrawn_at IS NULL
                 WHERE f.followee_id = \(userId))::int,
              (SELECT count(*) FROM \(table: s, "follows") f JOIN \(table: s, "users") u ON u.user_id = f.followee_id AND u.withdrawn_at IS NULL
                 WHERE f.follower_id = \(userId))::int
            """, logger: logger)
        let decoder = JSONDecoder()
        for try await row in rows.decode((String, String, [String], Int, Int, Int, Int, Int).self) {
            let followers = try decoder.decode([UserJSON].self, from: Data(row.0.utf8))
            let following = try decoder.decode([UserJSON].self, from: Data(row.1.utf8))
            return (
                followers, following, row.2,
                Counts(posts: row.3, comments: row.4, likes: row.5, followers: row.6, following: row.7)
            )
        }
        return ([], [], [], Counts())
    }

    // MARK: Search

    /// Active users whose nick contains `term` (case-insensitively), prefix matches first, at most `limit`.
    /// One character: prefix matches only (B-tree); longer terms: substring (trigram GIN index).
    func search(_ term: String, limit: Int, logger: Logger) async throws -> [UserJSON] {
        let s = schema
        let lowered = term.lowercased()
        let escaped = lowered.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        let prefix = escaped + "%"
        let rows: PostgresRowSequence
        if lowered.count < 2 {
            rows = try await client.query(
                """
                SELECT user_id, nick, profile_image FROM \(table: s, "users")
                WHERE withdrawn_at IS NULL AND lower(nick) LIKE \(prefix)
                ORDER BY lower(nick) LIMIT \(limit)
                """, logger: logger)
        } else {
            let contains = "%" + escaped + "%"
            rows = try await client.query(
                """
                SELECT user_id, nick, profile_image FROM \(table: s, "users")
                WHERE withdrawn_at IS NULL AND lower(nick) LIKE \(contains)
                ORDER BY (lower(nick) LIKE \(prefix)) DESC, length(nick), lower(nick) LIMIT \(limit)
                """, logger: logger)
        }
        var users: [UserJSON] = []
        for try await (userId, nick, image) in rows.decode((String, String, String?).self) {
            users.append(UserJSON(userId: userId, nick: nick, profileImage: image))
        }
        return users
    }
}
