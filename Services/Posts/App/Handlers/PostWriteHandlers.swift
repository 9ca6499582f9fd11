import Foundation
import Hummingbird
import SNSPlatform

/// `POST /v1/posts`, `PUT /v1/posts/{post_id}` → §3.1 Post; `DELETE /v1/posts/{post_id}` → 200 with an empty body
/// (clients read none; some check for exactly 200; G2 likewise), G0 `DELETE /post/{post_id}` → `{_id}` (API conventions §4).
/// The writes themselves are `PostWrites`; G0's multipart create and edit are `G0PostWriteHandlers`.
struct PostWriteHandlers: Sendable {
    let writes: PostWrites
    var format: WireFormat = .g1

    func create(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await Self.body(request, context: context)
        return try .post(try await writes.create(body, by: caller), context.wireFormat(format))
    }

    func update(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let postId = try context.parameters.require("post_id")
        let body = try await Self.body(request, context: context)
        return try .post(try await writes.update(postId: postId, body, by: caller), context.wireFormat(format))
    }

    func delete(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let postId = try context.parameters.require("post_id")
        try await writes.delete(postId: postId, by: caller)
        switch context.wireFormat(format) {
        case .g1, .g2: return Response(status: .ok)
        case .g0: return try .json(G0DeletedPost(id: postId))
        }
    }

    /// A G1 body, or a G2 app's (both spellings, a place, slashed paths).
    static func body(_ request: Request, context: APIRequestContext) async throws -> PostBody {
        context.productId == nil
            ? try await request.decodeJSON(as: PostBody.self, context: context)
            : try await request.decodeJSON(as: G2PostBody.self, context: context).body
    }
}
