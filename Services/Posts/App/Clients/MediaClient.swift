import Logging
import NIOCore
import SNSPlatform

/// The one synchronous call of the posts service (decision 0011): a G0 (2023) post carries its images inline
/// in the multipart form, and media owns files, so each image is handed to media's internal
/// `POST /internal/v1/post-images` with the caller's own access token — media sniffs, limits, stores and
/// signs it exactly as for `POST /v1/posts/files`, and the returned path then passes the same `files` check
/// as a G1 client's. Answers are mapped by `InternalServiceClient` (a 400 for a bad image reaches the app as is).
struct MediaClient: Sendable {
    let media: InternalServiceClient

    init(mediaURL: String, apiKey: String, timeout: Duration) {
        media = InternalServiceClient(service: "media", baseURL: mediaURL, apiKey: apiKey, timeout: timeout)
    }

    func storePostImage(_ bytes: ByteBuffer, token: String, trace: TraceContext, logger: Logger) async throws -> String
    {
        struct Stored: Decodable { var path: String }
        return try await media.call(
            .POST, "/internal/v1/post-images", body: bytes, contentType: "application/octet-stream", token: token,
            trace: trace, refusal: "파일이 제한 사항에 맞지 않습니다.", logger: logger, as: Stored.self
        ).path
    }
}
