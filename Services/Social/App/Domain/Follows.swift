import Foundation
import SNSPlatform

/// Following and unfollowing (API conventions §2.5, §10.9). Yourself → 400; unknown or withdrawn user → 410;
/// already following → 409 (two concurrent follows race on the primary key: one 200, one 409); unfollowing
/// someone you do not follow → 410. The edge and its `user-followed` / `user-unfollowed` event commit together
/// (keyed by the follower).
struct Follows: Sendable {
    let deps: SocialDependencies

    /// The two nicks after the change (the caller's and the other user's).
    func set(following: Bool, target: String, by caller: Caller) async throws -> (myNick: String, theirNick: String) {
        let (me, logger) = (caller.userId, caller.logger)
        guard target != me else { throw APIError.badRequest("자기 자신을 팔로우할 수 없습니다. (you cannot follow yourself)") }
        let now = Date()
        let ticket = deps.outbox.readYourWrites()
        let nicks = try await deps.postgres.transaction(logger: logger) {
            connection -> (myNick: String, theirNick: String) in
            guard let opponent = try await deps.store.user(target, on: connection, logger: logger), !opponent.withdrawn
            else {
                throw APIError.gone("유저를 찾을 수 없습니다. (user not found)")
            }
            let mine = try await deps.store.user(me, on: connection, logger: logger)
            let edge = FollowEdge(followerId: me, followeeId: target, at: now)
            if following {
                do {
                    try await deps.store.insertFollow(
                        follower: me, followee: target, at: now, on: connection, logger: logger)
                } catch SocialStore.FollowConflict.alreadyFollowing {
                    throw APIError.conflict("이미 팔로잉 된 계정입니다. (already following)")
                }
                try await deps.outbox.append(
                    UserFollowed(edge: edge), aggregateId: me, trace: caller.trace, awaitedBy: ticket,
                    on: connection, logger: logger)
            } else {
                guard try await deps.store.deleteFollow(follower: me, followee: target, on: connection, logger: logger)
                else {
                    throw APIError.gone("팔로잉 하지 않은 계정입니다. (not following this user)")
                }
                try await deps.outbox.append(
                    UserUnfollowed(edge: edge), aggregateId: me, trace: caller.trace, awaitedBy: ticket,
                    on: connection, logger: logger)
            }
            return (mine?.nick ?? "", opponent.nick)
        }
        await ticket.wait(logger: logger)  // the following feed lives in posts (decision 0013)
        return nicks
    }
}
