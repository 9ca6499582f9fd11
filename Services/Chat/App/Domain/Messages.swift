import Foundation
import PostgresNIO
import SNSPlatform

/// Sending and reading a room's messages. Only participants may (445 for anyone else); an unknown room, or one
/// whose other participant has withdrawn, is 410. A message and its `chat-message-sent` event commit together
/// (keyed by the room); every chat replica pushes that event to the room's sockets.
///
/// Messages of a room are strictly ordered by `createdAt`: a send locks its room, and a message is never dated
/// before the room's previous one, so a client that asks for everything after the newest date it has (KeyCat's
/// `cursor_date`) never misses one that committed later with an earlier date.
struct Messages: Sendable {
    let deps: ChatDependencies

    static let maxContentLength = 1_000
    static let maxFiles = 5

    func send(_ body: SendMessageBody, to roomId: String, by caller: Caller) async throws -> ChatJSON {
        let (me, logger) = (caller.userId, caller.logger)
        let content = body.content ?? ""
        let files = body.files ?? []
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || !files.isEmpty else {
            throw APIError.badRequest("필수값을 채워주세요: content (a message needs content or files)")
        }
        guard content.count <= Self.maxContentLength else {
            throw APIError.badRequest("내용이 너무 깁니다. (content longer than \(Self.maxContentLength) characters)")
        }
        guard files.count <= Self.maxFiles else {
            throw APIError.badRequest("파일은 \(Self.maxFiles)개까지 보낼 수 있습니다. (at most \(Self.maxFiles) files)")
        }
        for file in files {
            guard let path = MediaPath(file), deps.mediaSigner.isIssued(path, to: me) else {
                throw APIError.badRequest("업로드하지 않은 파일입니다: \(file) (not a file uploaded by you)")
            }
        }
        // Nobody awaits a message's event (sockets get it from the topic), but the ticket wakes chat's own relay after
        // the commit instead of a `NOTIFY` (decision 0036).
        let ticket = deps.outbox.readYourWrites()
        let sent = try await deps.postgres.transaction(logger: logger) { connection in
            let (room, users) = try await participantRoom(roomId, caller: caller, lock: true, on: connection)
            let previous = try await deps.store.lastMessage(in: room.roomId, on: connection, logger: logger)
            // Whole milliseconds, as the apps see them; never before the room's previous message.
            var millis = APIDateFormat.milliseconds(Date())
            if let previous { millis = max(millis, APIDateFormat.milliseconds(previous.createdAt) + 1) }
            let now = Date(timeIntervalSince1970: Double(millis) / 1000)
            let message = ChatStore.Message(
                chatId: ObjectID.generate(now: now), roomId: room.roomId, senderId: me, content: content,
                files: files, createdAt: now)
            try await deps.store.insert(message, on: connection, logger: logger)
            let sender = Rooms.participant(users[me], id: me)
            try await deps.outbox.append(
                ChatMessageSent(
                    chatId: message.chatId, roomId: room.roomId, content: content, files: files,
                    sender: .init(userId: me, nick: sender.nick, profileImage: sender.profileImage),
                    participants: room.participantIds, createdAt: now),
                aggregateId: room.roomId, trace: caller.trace, awaitedBy: ticket, on: connection, logger: logger)
            return Self.json(message, sender: sender)
        }
        await ticket.wait(logger: logger)
        return sent
    }

    /// A page of the room's messages, oldest first.
    func history(of roomId: String, page: ChatStore.Page, by caller: Caller) async throws -> [ChatJSON] {
        let logger = caller.logger
        return try await deps.postgres.withConnection { connection in
            let (room, users) = try await participantRoom(roomId, caller: caller, lock: false, on: connection)
            let messages = try await deps.store.messages(
                in: room.roomId, page: page, limit: deps.historyLimit, on: connection, logger: logger)
            return messages.map { Self.json($0, sender: Rooms.participant(users[$0.senderId], id: $0.senderId)) }
        }
    }

    /// The room, if it is live (410 otherwise) and the caller is in it (445 otherwise); and both participants.
    func participantRoom(
        _ roomId: String, caller: Caller, lock: Bool, on connection: PostgresConnection
    ) async throws -> (ChatStore.Room, [String: ChatStore.User]) {
        guard
            let (room, users) = try await deps.store.liveRoom(
                roomId, on: connection, forUpdate: lock, logger: caller.logger)
        else { throw APIError.gone(Rooms.roomNotFound) }
        guard room.includes(caller.userId) else { throw APIError(445, Rooms.notParticipant) }
        return (room, users)
    }

    static func json(_ message: ChatStore.Message, sender: ChatUserJSON) -> ChatJSON {
        ChatJSON(
            chatId: message.chatId, roomId: message.roomId, content: message.content, createdAt: message.createdAt,
            sender: sender, files: message.files)
    }
}
