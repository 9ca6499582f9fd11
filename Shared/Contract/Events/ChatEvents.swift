import Foundation

/// `chat-message-sent`, published by chat for every message (keyed by the room id, so a room's messages stay in
/// order). Carries the whole message as the apps decode it, so that every chat replica can push it to the sockets
/// it holds without reading the database.
package struct ChatMessageSent: EventPayload, Equatable {
    package static let eventType = EventType.chatMessageSent

    /// The sender as the message shows it (nick and image at the time of sending).
    package struct Sender: Codable, Sendable, Equatable {
        package var userId: String
        package var nick: String
        package var profileImage: String?

        package init(userId: String, nick: String, profileImage: String?) {
            self.userId = userId
            self.nick = nick
            self.profileImage = profileImage
        }

        enum CodingKeys: String, CodingKey { case userId = "user_id", nick, profileImage = "profile_image" }
    }

    package var chatId: String
    package var roomId: String
    package var content: String
    package var files: [String]
    package var sender: Sender
    /// Both participants' user ids.
    package var participants: [String]
    package var createdAt: Date

    package init(
        chatId: String, roomId: String, content: String, files: [String], sender: Sender, participants: [String],
        createdAt: Date
    ) {
        self.chatId = chatId
        self.roomId = roomId
        self.content = content
        self.files = files
        self.sender = sender
        self.participants = participants
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id", roomId = "room_id", content, files, sender, participants, createdAt = "created_at"
    }
}
