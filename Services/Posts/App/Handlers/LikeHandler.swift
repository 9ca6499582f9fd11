import Foundation
import Hummingbird
import SNSPlatform

/// `POST /v1/posts/{post_id}/like` and `/like-2` with `{like_status}` = the desired state (API conventions §10.8),
/// and G0's `POST /post/like/{post_id}` with no body = a toggle (API conventions §4); both answer `{like_status}`.
/// The change itself is `Likes`.
struct LikeHandler: Sendable {
    let likes: Likes

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let postId = try context.parameters.require("post_id")
        let body = try await request.decodeJSON(as: LikeStatus.self, context: context)
        let status = try await likes.apply(.state(body.likeStatus), postId: postId, by: caller)
        return try .json(LikeStatus(likeStatus: status))
    }

    /// G0 `POST /post/like/{post_id}` (no body) → `{like_status}` = the new state.
    func toggle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let postId = try context.parameters.require("post_id")
        let status = try await likes.apply(.toggle, postId: postId, by: caller)
        return try .json(LikeStatus(likeStatus: status))
    }
}
