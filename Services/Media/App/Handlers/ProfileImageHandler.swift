import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// `POST /internal/v1/profile-images` (internal: never routed by the gateway): the body is the image itself
/// (any `Content-Type`; the type comes from the bytes) → `{"path": "uploads/profiles/<name>.<ext>"}`.
///
/// Why it exists: the public profile edit (`PUT /v1/users/me/profile`, multipart field `profile`, contract
/// §2.2 #7) is served by the social service, which forwards the image here with the user's own access token
/// and `SesacKey`, then hands the path to auth. The file is treated exactly like a post upload — sniffed,
/// limited to `SNS_MEDIA_MAX_FILE_BYTES` while streaming, JPEG metadata stripped, stored atomically under a
/// signed name, recorded with a `files` row and a `media-stored` event in one transaction — but as kind
/// `.profiles`, owned by the token's user, so auth can verify locally that the path was issued to that user.
/// It is referenced (kept from garbage collection) once a `user-updated` event names it.
///
/// 400 `{"message"}` for an empty body, a non-image or a file over the limit; 401/419 token; 420 SesacKey.
struct ProfileImageHandler: Sendable {
    let deps: MediaDependencies

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let file = try await deps.rawReceiver.receive(request.body, logger: context.logger)
        let paths = try await deps.store.store([file], kind: .profiles, owner: user.userId, trace: context.trace, logger: context.logger)
        guard let path = paths.first else { throw APIError.internalError() }
        return try .json(ProfileImageResponse(path: path.string))
    }
}

/// `{"path": "uploads/profiles/<name>.<ext>"}`: a relative path, no leading slash (contract §1.3).
struct ProfileImageResponse: Codable, Sendable, Equatable {
    var path: String
}
