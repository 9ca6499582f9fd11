import Foundation
import NIOCore
import SNSPlatform

/// A room's file upload: only a participant (445 for anyone else; an unknown or gone room is 410), at most 5 files
/// of at most 5 MB (media checks again what each one is). The answer's paths then go in a message's `files`.
struct ChatFiles: Sendable {
    let deps: ChatDependencies
    let media: MediaClient
    let messages: Messages

    static let maxFiles = 5
    static let maxFileBytes = 5 * 1024 * 1024

    func upload(_ files: [ByteBuffer], to roomId: String, token: String, by caller: Caller) async throws -> [String] {
        guard !files.isEmpty else { throw APIError.badRequest("필수값을 채워주세요: files (no file)") }
        _ = try await deps.postgres.withConnection { connection in
            try await messages.participantRoom(roomId, caller: caller, lock: false, on: connection)
        }
        var paths: [String] = []
        for file in files {
            paths.append(try await media.storeChatFile(file, token: token, trace: caller.trace, logger: caller.logger))
        }
        return paths
    }
}
