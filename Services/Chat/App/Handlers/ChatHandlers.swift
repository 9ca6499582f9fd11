import Foundation
import Hummingbird
import SNSPlatform

/// The chat routes: decode → `Rooms` / `Messages` → encode.
/// - `POST /v1/chats` `{opponent_id}` → the room (opened now or the existing one)
/// - `GET /v1/chats` → `{data: [room]}`, most recently active first
/// - `GET /v1/chats/{room_id}?cursor_date=` → `{data: [chat]}` after that instant, oldest first (`before=` pages back
///   instead; neither: the newest)
/// - `POST /v1/chats/{room_id}` `{content, files?}` → the message
/// - `POST /v1/chats/{room_id}/files` multipart `files` (≤ 5) → `{files: [path]}`
struct ChatHandlers: Sendable {
    let rooms: Rooms
    let messages: Messages
    let files: ChatFiles

    func open(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await request.decodeJSON(as: OpenRoomBody.self, context: context)
        return try .json(try await rooms.open(with: body.opponentId, by: caller))
    }

    func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        return try .json(ChatListJSON(data: try await rooms.list(for: caller)))
    }

    func history(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let roomId = try context.parameters.require("room_id")
        let query = request.uri.queryParameters
        let page: ChatStore.Page
        if let cursor = query["cursor_date"].map(String.init), !cursor.isEmpty {
            page = .after(try Self.instant(cursor, name: "cursor_date"))
        } else if let before = query["before"].map(String.init), !before.isEmpty {
            page = .before(try Self.instant(before, name: "before"))
        } else {
            page = .newest
        }
        return try .json(ChatListJSON(data: try await messages.history(of: roomId, page: page, by: caller)))
    }

    func send(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let roomId = try context.parameters.require("room_id")
        let body = try await request.decodeJSON(as: SendMessageBody.self, context: context)
        return try .json(try await messages.send(body, to: roomId, by: caller))
    }

    func upload(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let roomId = try context.parameters.require("room_id")
        let limit = ChatFiles.maxFiles * ChatFiles.maxFileBytes + 64 * 1024
        let form = try await BufferedMultipartForm.read(
            request, limit: limit,
            tooLarge: "파일이 제한 사항에 맞지 않습니다. (at most \(ChatFiles.maxFiles) files of \(ChatFiles.maxFileBytes) bytes)")
        var uploads: [ByteBuffer] = []
        for part in form.parts where part.name == "files" && part.body.readableBytes > 0 {
            guard part.body.readableBytes <= ChatFiles.maxFileBytes else {
                throw APIError.badRequest("파일이 제한 사항에 맞지 않습니다. (a file is larger than \(ChatFiles.maxFileBytes) bytes)")
            }
            uploads.append(part.body)
            guard uploads.count <= ChatFiles.maxFiles else {
                let most = ChatFiles.maxFiles
                throw APIError.badRequest("파일은 최대 \(most)개까지 첨부할 수 있습니다. (at most \(most) files)")
            }
        }
        let token = request.headers[.authorization] ?? ""
        let paths = try await files.upload(uploads, to: roomId, token: token, by: caller)
        return try .json(UploadedFilesJSON(files: paths))
    }

    /// An ISO-8601 instant with or without milliseconds, in UTC (`Z`) or with an offset (KeyCat sends the phone's,
    /// e.g. `+09:00`): instants are compared, not strings. A `+` that arrived unencoded reads as a space.
    static func instant(_ text: String, name: String) throws -> Date {
        let candidate = text.replacingOccurrences(of: " ", with: "+")
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: candidate) { return date }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        if let date = plain.date(from: candidate) { return date }
        throw APIError.badRequest("잘못된 날짜입니다: \(name) (expected an ISO-8601 date and time)")
    }
}
