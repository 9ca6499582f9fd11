import Logging
import NIOCore
import SNSPlatform

/// Chat's one synchronous call: a room's file upload (`POST /v1/chats/{room_id}/files`) is checked here (only a
/// participant of the room may upload to it), then each file goes to media's internal `POST /internal/v1/chat-files`
/// with the caller's own token — media sniffs, limits, strips, stores and signs it as for a post's image, under
/// `uploads/chats/`, and keeps it once a message names it (`chat-message-sent`).
struct MediaClient: Sendable {
    let media: InternalServiceClient

    init(mediaURL: String, apiKey: String, timeout: Duration) {
        media = InternalServiceClient(service: "media", baseURL: mediaURL, apiKey: apiKey, timeout: timeout)
    }

    func storeChatFile(_ bytes: ByteBuffer, token: String, trace: TraceContext, logger: Logger) async throws -> String {
        struct Stored: Decodable { var path: String }
        return try await media.call(
            .POST, "/internal/v1/chat-files", body: bytes, contentType: "application/octet-stream", token: token,
            trace: trace, refusal: "파일이 제한 사항에 맞지 않습니다.", logger: logger, as: Stored.self
        ).path
    }
}
