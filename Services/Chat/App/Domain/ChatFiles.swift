import Foundation
import NIOCore
import SNSPlatform

/// A room's file upload: only a participant (445 for anyone else; an unknown or gone room is 410), checked before a
/// byte of the body is read; the form then streams on to media, which applies the upload rules (at most 5 files,
/// photos of 5 MB, videos and voice memos of 10 MB, by their bytes; decision 0046) and stores the files. The answer's
/// paths then go in a message's `files`.
struct ChatFiles: Sendable {
    let deps: ChatDependencies
    let media: MediaClient
    let messages: Messages

    func upload<Body: AsyncSequence & Sendable>(
        _ body: Body, length: Int?, contentType: String?, to roomId: String, token: String, by caller: Caller
    ) async throws -> [String] where Body.Element == ByteBuffer {
        _ = try await deps.postgres.withConnection { connection in
            try await messages.participantRoom(roomId, caller: caller, lock: false, on: connection)
        }
        guard let contentType, HeaderParameters.multipartBoundary(contentType: contentType) != nil else {
            throw APIError.badRequest("multipart/form-data 형식이어야 합니다. (expected multipart/form-data with a boundary)")
        }
        return try await media.storeRoomUpload(
            body, length: length, contentType: contentType, token: token, trace: caller.trace, logger: caller.logger)
    }
}
