import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// `POST /internal/v1/profile-images` and `POST /internal/v1/post-images` (internal: never routed by the
/// gateway): the body is the image itself (any `Content-Type`; the type comes from the bytes) →
/// `{"path": "uploads/<kind>/<name>.<ext>"}`.
///
/// Why they exist: two public routes take an image inside a form that another service serves.
/// - The profile edit (`PUT /v1/users/me/profile` and G0 `PUT /profile/me`, multipart field `profile`, contract
///   §2.2 #7) is served by social, which forwards the image here and hands the path to auth.
/// - The G0 (2023) post create and edit (`POST /post`, `PUT /post/{id}`, repeated multipart field `file`,
///   API conventions §4, decision 0011) are served by posts, which forwards each image here and then writes the post
///   with the returned paths exactly as a G1 client would after `POST /v1/posts/files`.
/// Both call with the user's own access token and `SesacKey`. The file is treated exactly like a G1 upload —
/// sniffed (a photo: videos and voice memos are refused, decision 0046), limited to `SNS_MEDIA_MAX_FILE_BYTES` while
/// streaming, metadata removed (decision 0044), stored atomically
/// under a signed name, recorded with a `files` row and a `media-stored` event in one transaction — as `kind`,
/// owned by the token's user, so auth or posts can verify locally that the path was issued to that user. It is
/// referenced (kept from garbage collection) once a `user-updated` / `post-created|updated` event names it; a
/// file whose post or profile write then fails is never referenced and is collected after the grace period.
///
/// 400 `{"message"}` for an empty body, a non-image or a file over the limit; 401/419 token; 420 SesacKey.
struct InternalImageHandler: Sendable {
    let deps: MediaDependencies
    let kind: MediaPath.Kind

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        // A profile image or a G0 post's image is a photo; a chat file (the previous chat version's route) may be a
        // video or a voice memo.
        let file = try await deps.rawReceiver.receive(
            request.body, photosOnly: kind != .chats, logger: context.logger)
        let paths = try await deps.store.store(
            [file], kind: kind, owner: user.userId, trace: context.trace, logger: context.logger)
        guard let path = paths.first else { throw APIError.internalError() }
        return try .json(InternalImageResponse(path: path.string))
    }
}

/// `{"path": "uploads/<kind>/<name>.<ext>"}`: a relative path, no leading slash (API conventions §1.3).
struct InternalImageResponse: Codable, Sendable, Equatable {
    var path: String
}
