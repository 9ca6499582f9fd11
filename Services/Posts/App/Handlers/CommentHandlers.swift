import Foundation
import Hummingbird
import SNSPlatform

/// `POST /v1/posts/{post_id}/comments`, `PUT` and `DELETE /v1/posts/{post_id}/comments/{comment_id}` → §3.3 Comment,
/// and 200 with an empty body for a deletion. The same handlers serve G0's singular paths
/// (`/post/{id}/comment/{comment_id}`, API conventions §4) in `format` `.g0`: `{_id, content, time, creator}`, and
/// `{postID, commentID}` for a deletion. The changes themselves are `Comments`.
struct CommentHandlers: Sendable {
    let comments: Comments
    var format: WireFormat = .g1

    func create(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let postId = try context.parameters.require("post_id")
        let body = try await request.decodeJSON(as: CommentBody.self, context: context)
        return try .comment(
            try await comments.create(postId: postId, content: body.content, by: caller), context.wireFormat(format))
    }

    func update(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let postId = try context.parameters.require("post_id")
        let commentId = try context.parameters.require("comment_id")
        let body = try await request.decodeJSON(as: CommentBody.self, context: context)
        return try .comment(
            try await comments.update(postId: postId, commentId: commentId, content: body.content, by: caller),
            context.wireFormat(format))
    }

    func delete(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let postId = try context.parameters.require("post_id")
        let commentId = try context.parameters.require("comment_id")
        try await comments.delete(postId: postId, commentId: commentId, by: caller)
        switch context.wireFormat(format) {
        case .g1, .g2: return Response(status: .ok)
        case .g0: return try .json(G0DeletedComment(postId: postId, commentId: commentId))
        }
    }
}
