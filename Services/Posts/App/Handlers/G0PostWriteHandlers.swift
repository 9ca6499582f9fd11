import Foundation
import Hummingbird
import SNSPlatform

/// G0 (2023) `POST /post` and `PUT /post/{post_id}` (API conventions §4, decision 0011): multipart with the images
/// inline (repeated part `file`) and text parts for the fields. The form becomes the G1 `PostBody`; the text is
/// checked first (so a bad form stores no image), then each image goes to media (`MediaClient`, the caller's own
/// token) and its path into `files`, and the write is `PostWrites.create` / `update` — the same rules, transaction
/// and events as G1. The answer is the G0 post.
///
/// When the post write fails after media stored the images (a 410/445 on edit, a lost database), those files
/// are referenced by nothing and media's garbage collector deletes them after its grace period (decision 0005).
/// An edit that carries `file` parts replaces the post's images; one without keeps them (Mobbie's edit of
/// `content2` alone).
struct G0PostWriteHandlers: Sendable {
    let writes: PostWrites
    let media: MediaClient
    let maxFiles: Int
    let maxFileBytes: Int

    func create(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        var form = try await G0PostForm.read(request, maxFiles: maxFiles, maxFileBytes: maxFileBytes)
        try writes.checkNew(form.body, owner: caller.userId)
        try await storeImages(&form, request: request, context: context)
        return try .post(try await writes.create(form.body, by: caller), .g0)
    }

    func update(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let postId = try context.parameters.require("post_id")
        var form = try await G0PostForm.read(request, maxFiles: maxFiles, maxFileBytes: maxFileBytes)
        try writes.checkFields(form.body, owner: caller.userId)
        try await storeImages(&form, request: request, context: context)
        return try .post(try await writes.update(postId: postId, form.body, by: caller), .g0)
    }

    /// Hands the form's images to media, in order, and puts their paths into `files`.
    private func storeImages(_ form: inout G0PostForm, request: Request, context: APIRequestContext) async throws {
        guard !form.images.isEmpty else { return }
        guard let token = AuthenticationMiddleware.token(from: request) else { throw APIError.unauthorized() }
        var paths: [String] = []
        for image in form.images {
            paths.append(
                try await media.storePostImage(image, token: token, trace: context.trace, logger: context.logger))
        }
        form.body.files = .value(paths)
    }
}
