import Foundation
import SNSPlatform

/// A participant or sender as the apps decode it: `{user_id, nick, profileImage?}`.
struct ChatUserJSON: Encodable, Sendable, Equatable {
    var userId: String
    var nick: String
    var profileImage: String?

    enum CodingKeys: String, CodingKey { case userId = "user_id", nick, profileImage }

    /// G2 (decision 0021): paths with a leading slash.
    var g2: ChatUserJSON { ChatUserJSON(userId: userId, nick: nick, profileImage: G2Path.encode(profileImage)) }
}

/// One message: `{chat_id, room_id, content, createdAt, sender, files}`. `content` is always a string (`""` for a
/// message of files only): one client decodes it as optional, another as required.
struct ChatJSON: Encodable, Sendable, Equatable {
    var chatId: String
    var roomId: String
    var content: String
    var createdAt: Date
    var sender: ChatUserJSON
    var files: [String]

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id", roomId = "room_id", content, createdAt, sender, files
    }

    var g2: ChatJSON {
        var message = self
        message.sender = sender.g2
        message.files = files.map { G2Path.encode($0) }
        return message
    }
}

/// One room: `{room_id, createdAt, updatedAt, participants, lastChat?}` (`lastChat` absent before the first message).
struct ChatRoomJSON: Encodable, Sendable {
    var roomId: String
    var createdAt: Date
    var updatedAt: Date
    var participants: [ChatUserJSON]
    var lastChat: ChatJSON?

    enum CodingKeys: String, CodingKey { case roomId = "room_id", createdAt, updatedAt, participants, lastChat }

    var g2: ChatRoomJSON {
        var room = self
        room.participants = participants.map(\.g2)
        room.lastChat = lastChat?.g2
        return room
    }
}

/// `{data: [...]}`, the list answers.
struct ChatListJSON<Item: Encodable & Sendable>: Encodable, Sendable {
    var data: [Item]
}

/// `POST /v1/chats` body.
struct OpenRoomBody: Decodable, Sendable {
    var opponentId: String

    enum CodingKeys: String, CodingKey { case opponentId = "opponent_id" }
}

/// `POST /v1/chats/{room_id}` body: `files` may be absent (BuyOrNot) or empty (KeyCat).
struct SendMessageBody: Decodable, Sendable {
    var content: String?
    var files: [String]?

    /// G2 apps send paths as they received them, with a leading slash.
    var withoutLeadingSlashes: SendMessageBody {
        SendMessageBody(
            content: content, files: files?.map { $0.hasPrefix("/") ? String($0.drop { $0 == "/" }) : $0 })
    }
}

/// `POST /v1/chats/{room_id}/files` → `{files: [path]}`.
struct UploadedFilesJSON: Encodable, Sendable {
    var files: [String]
}
