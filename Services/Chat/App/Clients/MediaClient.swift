import Logging
import NIOCore
import SNSPlatform

/// Chat's one synchronous call: a room's file upload (`POST /v1/chats/{room_id}/files`) is checked here (only a
/// participant of the room may upload to it), then the client's multipart body goes on to media's internal
/// `POST /internal/v1/chat-uploads` **as it streams in**, with the caller's own token. Media reads it exactly like
/// `POST /v1/posts/files` — the limits while streaming, sniffing, metadata removal, signed names — stores the files
/// under `uploads/chats/` and keeps them once a message names them (`chat-message-sent`). Chat holds none of the
/// body (decision 0046).
struct MediaClient: Sendable {
    let media: InternalServiceClient

    init(mediaURL: String, apiKey: String, timeout: Duration) {
        media = InternalServiceClient(service: "media", baseURL: mediaURL, apiKey: apiKey, timeout: timeout)
    }

    /// Passes `body` (the client's multipart form, `contentType` with its boundary, `length` bytes when known) to media
    /// and returns the stored files' paths, relative, in upload order.
    func storeRoomUpload<Body: AsyncSequence & Sendable>(
        _ body: Body, length: Int?, contentType: String, token: String, trace: TraceContext, logger: Logger
    ) async throws -> [String] where Body.Element == ByteBuffer {
        return try await media.call(
            .POST, "/internal/v1/chat-uploads", streaming: body, length: length, contentType: contentType,
            token: token, trace: trace, refusal: "파일이 제한 사항에 맞지 않습니다.", logger: logger, as: StoredFiles.self
        ).files
    }
}

/// Media's answer to an upload: `{"files": [...]}`.
private struct StoredFiles: Decodable {
    var files: [String]
}
