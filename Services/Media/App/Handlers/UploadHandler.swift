import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// `POST /v1/posts/files` (multipart, field `files` once per image) → `{"files": ["uploads/posts/<name>.<ext>", …]}`
/// in upload order; also, as `kind` `.chats`, the internal `POST /internal/v1/chat-uploads`, to which chat passes a
/// room's upload on (decision 0046). 400 when there is no file, more than `SNS_MEDIA_MAX_FILES`, a photo over
/// `SNS_MEDIA_MAX_FILE_BYTES` or a video or voice memo over `SNS_MEDIA_MAX_VIDEO_BYTES`, a file that is not a
/// JPEG/PNG/GIF/WebP/HEIF image, an MP4/QuickTime video or an MPEG-4 audio voice memo by its bytes, or a broken JPEG
/// or HEIF (API conventions §10.7). The body is read as it streams and abandoned at the first violation.
struct UploadHandler: Sendable {
    let deps: MediaDependencies
    var kind: MediaPath.Kind = .posts

    static let fileField = "files"

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let form = try await deps.receiver.receive(
            request.body, contentType: request.headers[.contentType], fileField: Self.fileField, logger: context.logger)
        guard !form.files.isEmpty else {
            await form.discard()
            throw APIError.badRequest("업로드할 파일이 없습니다. (no file in the '\(Self.fileField)' field)")
        }
        let paths = try await deps.store.store(
            form.files, kind: kind, owner: user.userId, trace: context.trace, logger: context.logger)
        // G2 apps (decision 0021) get the paths with a leading slash, and send them back so.
        return try .json(
            UploadResponse(files: paths.map { context.productId == nil ? $0.string : G2Path.encode($0.string) }))
    }
}

/// `{"files": [...]}`: relative paths, no leading slash (API conventions §1.3); G2: with one.
struct UploadResponse: Codable, Sendable, Equatable {
    var files: [String]
}
