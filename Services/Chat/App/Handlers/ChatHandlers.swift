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
/// G2 requests (`ProductId`, decision 0021) get paths with a leading slash; their `before` also returns what came
/// after the instant.
struct ChatHandlers: Sendable {
    let rooms: Rooms
    let messages: Messages
    let files: ChatFiles

    func open(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await request.decodeJSON(as: OpenRoomBody.self, context: context)
        let room = try await rooms.open(with: body.opponentId, by: caller)
        return try .json(context.productId == nil ? room : room.g2)
    }

    func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let list = try await rooms.list(for: caller)
        return try .json(ChatListJSON(data: context.productId == nil ? list : list.map(\.g2)))
    }

    func history(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let roomId = try context.parameters.require("room_id")
        let query = request.uri.queryParameters
        let page: ChatStore.Page
        if let cursor = query["cursor_date"].map(String.init), !cursor.isEmpty {
            page = .after(try Self.instant(cursor, name: "cursor_date"))
        } else if let before = query["before"].map(String.init), !before.isEmpty {
            let instant = try Self.instant(before, name: "before")
            if context.productId != nil {
                // WeeMo sends `before` both to page back (the oldest message it shows) and to catch up (the newest
                // it has): a G2 answer holds the page before the instant and the messages from it on (decision 0021;
                // a message dated exactly at the instant belongs to the newer half, so none falls between the two).
                let older = try await messages.history(of: roomId, page: .before(instant), by: caller)
                let newer = try await messages.history(of: roomId, page: .from(instant), by: caller)
                return try .json(ChatListJSON(data: (older + newer).map(\.g2)))
            }
            page = .before(instant)
        } else {
            page = .newest
        }
        let history = try await messages.history(of: roomId, page: page, by: caller)
        return try .json(ChatListJSON(data: context.productId == nil ? history : history.map(\.g2)))
    }

    func send(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let roomId = try context.parameters.require("room_id")
        let body = try await request.decodeJSON(as: SendMessageBody.self, context: context)
        let message = try await messages.send(
            context.productId == nil ? body : body.withoutLeadingSlashes, to: roomId, by: caller)
        return try .json(context.productId == nil ? message : message.g2)
    }

    func upload(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let roomId = try context.parameters.require("room_id")
        let token = request.headers[.authorization] ?? ""
        let paths = try await files.upload(
            request.body, length: request.headers[.contentLength].flatMap { Int($0) },
            contentType: request.headers[.contentType], to: roomId, token: token, by: caller)
        return try .json(UploadedFilesJSON(files: context.productId == nil ? paths : paths.map { G2Path.encode($0) }))
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
