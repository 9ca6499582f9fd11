import Foundation
import Hummingbird
import SNSPlatform

/// `POST` / `DELETE /v1/follow/{user_id}` (API conventions §2.5, §10.9) → `{nick, opponent_nick, following_status}`;
/// in `format` `.g0` the same handlers serve G0's `POST|DELETE /follow/{user_id}` (API conventions §4) →
/// `{user, following, following_status}` with the two user ids. G2 (decision 0021) adds `follow_status`, the key
/// WeeMo decodes, beside mychelin's `following_status`. The change itself is `Follows`.
struct FollowHandlers: Sendable {
    let follows: Follows
    var format: WireFormat = .g1

    func follow(_ request: Request, context: APIRequestContext) async throws -> Response {
        try await change(request, context: context, follow: true)
    }

    func unfollow(_ request: Request, context: APIRequestContext) async throws -> Response {
        try await change(request, context: context, follow: false)
    }

    private func change(_ request: Request, context: APIRequestContext, follow: Bool) async throws -> Response {
        let caller = try context.caller()
        let target = try context.parameters.require("user_id")
        let (myNick, theirNick) = try await follows.set(following: follow, target: target, by: caller)
        switch context.wireFormat(format) {
        case .g1: return try .json(FollowJSON(nick: myNick, opponentNick: theirNick, followingStatus: follow))
        case .g2:
            return try .json(
                FollowJSON(nick: myNick, opponentNick: theirNick, followingStatus: follow, followStatus: follow))
        case .g0: return try .json(G0FollowJSON(user: caller.userId, following: target, followingStatus: follow))
        }
    }
}
