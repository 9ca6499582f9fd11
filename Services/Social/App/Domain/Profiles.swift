import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// Builds §3.4 profiles from the read model and carries out profile edits (decision 0006): the image goes to
/// media, the fields to auth (which owns nicks and publishes `user-updated`), and the answer is written into
/// this service's read model at once so the caller reads their own write.
struct Profiles: Sendable {
    let store: SocialStore
    let client: InternalClient
    let postgres: DatabasePool
    let schema: SQLIdentifier
    let maxImageBytes: Int

    func profile(of userId: String, includePrivate: Bool, logger: Logger) async throws -> ProfileJSON? {
        guard let user = try await store.user(userId, logger: logger), !user.withdrawn else { return nil }
        let lists = try await store.profileLists(of: userId, logger: logger)
        return ProfileJSON(
            userId: user.userId, email: includePrivate ? user.email : nil, nick: user.nick,
            phoneNum: includePrivate ? user.phoneNum : nil, birthDay: includePrivate ? user.birthDay : nil,
            profileImage: user.profileImage, followers: lists.followers, following: lists.following, posts: lists.posts,
            postCount: lists.counts.posts, commentCount: lists.counts.comments, likeCount: lists.counts.likes,
            followerCount: lists.counts.followers, followingCount: lists.counts.following)
    }

    /// Applies an edit through auth (and media for the image) and records the result locally.
    func edit(
        _ update: InternalClient.ProfileUpdate, image: ByteBuffer?, token: String, trace: TraceContext,
        logger: Logger
    ) async throws {
        var update = update
        if let image, image.readableBytes > 0 {
            update.profileImage = try await client.storeProfileImage(image, token: token, trace: trace, logger: logger)
        }
        let account = try await client.updateProfile(update, token: token, trace: trace, logger: logger)
        try await postgres.transaction(logger: logger) { connection in
            try await ProfileWriter(schema: schema).apply(
                userId: account.userId, nick: account.nick, phoneNum: account.phoneNum, birthDay: account.birthDay,
                profileImage: account.profileImage, at: account.updatedAt, on: connection, logger: logger)
            let s = schema
            try await connection.query(
                "UPDATE \(table: s, "users") SET email = coalesce(email, \(account.email)) WHERE user_id = \(account.userId)",
                logger: logger)
        }
    }
}
