import Foundation
import Hummingbird
import SNSPlatform

/// `POST` / `DELETE /v1/follow/{user_id}` (API conventions §2.5, §10.9): `{nick, opponent_nick, following_status}`.
/// Yourself → 400; unknown or withdrawn user → 410; already following → 409 (two concurrent follows race on
/// the primary key: one 200, one 409); unfollowing someone you do not follow → 410. The edge and its
/// `user-followed` / `user-unfollowed` event commit together (keyed by the follower).
///
/// In `format` `.g0` the same handlers serve G0's `POST|DELETE /follow/{user_id}` (API conventions §4):
/// `{user, following, following_status}` with the two user ids.
struct FollowHandlers: Sendable {
    let deps: SocialDependencies
    var format: WireFormat = .g1

    func follow(_ request: Request, context: APIRequestContext) async throws -> Response {
        try await change(request, context: context, follow: true)
    }

    func unfollow(_ request: Request, context: APIRequestContext) async throws -> Response {
        try await change(request, context: context, follow: false)
    }

    private func change(_ request: Request, context: APIRequestContext, follow: Bool) async throws -> Response {
        let me = try context.requireUser()
        let target = try context.parameters.require("user_id")
        guard target != me.userId else { throw APIError.badRequest("자기 자신을 팔로우할 수 없습니다. (you cannot follow yourself)") }
        let now = Date()
        let ticket = deps.outbox.readYourWrites()
        let (myNick, theirNick) = try await deps.postgres.transaction(logger: context.logger) {
            connection -> (String, String) in
            guard let opponent = try await deps.store.user(target, on: connection, logger: context.logger),
                !opponent.withdrawn
            else {
                throw APIError.gone("유저를 찾을 수 없습니다. (user not found)")
            }
            let mine = try await deps.store.user(me.userId, on: connection, logger: context.logger)
            let edge = FollowEdge(followerId: me.userId, followeeId: target, at: now)
            if follow {
                do {
                    try await deps.store.insertFollow(
                        follower: me.userId, followee: target, at: now, on: connection, logger: context.logger)
                } catch SocialStore.FollowConflict.alreadyFollowing {
                    throw APIError.conflict("이미 팔로잉 된 계정입니다. (already following)")
                }
                try await deps.outbox.append(
                    UserFollowed(edge: edge), aggregateId: me.userId, trace: context.trace,
                    awaitedBy: ticket, on: connection, logger: context.logger)
            } else {
                guard
                    try await deps.store.deleteFollow(
                        follower: me.userId, followee: target, on: connection, logger: context.logger)
                else {
                    throw APIError.gone("팔로잉 하지 않은 계정입니다. (not following this user)")
                }
                try await deps.outbox.append(
                    UserUnfollowed(edge: edge), aggregateId: me.userId, trace: context.trace,
                    awaitedBy: ticket, on: connection, logger: context.logger)
            }
            return (mine?.nick ?? "", opponent.nick)
        }
        await ticket.wait(logger: context.logger)  // the following feed lives in posts (decision 0013)
        switch format {
        case .g1: return try .json(FollowJSON(nick: myNick, opponentNick: theirNick, followingStatus: follow))
        case .g0: return try .json(G0FollowJSON(user: me.userId, following: target, followingStatus: follow))
        }
    }
}
