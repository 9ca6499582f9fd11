import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// SQL over the chat schema: rooms, messages and the users read model. Every statement binds its values.
struct ChatStore: Sendable {
    let client: DatabasePool
    let schema: SQLIdentifier

    struct User: Sendable, Equatable {
        var userId: String
        var nick: String
        var profileImage: String?
        var withdrawn: Bool

        var json: ChatUserJSON { ChatUserJSON(userId: userId, nick: nick, profileImage: profileImage) }
    }

    struct Room: Sendable {
        var roomId: String
        var openedBy: String
        var firstUser: String
        var secondUser: String
        var createdAt: Date
        var updatedAt: Date

        func includes(_ userId: String) -> Bool { firstUser == userId || secondUser == userId }
        /// Participants in the order the apps see them: who opened the room first.
        var participantIds: [String] { openedBy == firstUser ? [firstUser, secondUser] : [secondUser, firstUser] }
    }

    struct Message: Sendable {
        var chatId: String
        var roomId: String
        var senderId: String
        var content: String
        var files: [String]
        var createdAt: Date
    }

    /// The users that exist for chat (registered, whatever their state), by id.
    func users(_ ids: [String], on connection: PostgresConnection, logger: Logger) async throws -> [String: User] {
        let s = schema
        let rows = try await connection.query(
            """
            SELECT user_id, nick, profile_image, withdrawn_at IS NOT NULL FROM \(table: s, "users")
            WHERE user_id = ANY(\(ids)) AND profile_at IS NOT NULL
            """, logger: logger)
        var users: [String: User] = [:]
        for try await (id, nick, image, withdrawn) in rows.decode((String, String, String?, Bool).self) {
            users[id] = User(userId: id, nick: nick, profileImage: image, withdrawn: withdrawn)
        }
        return users
    }

    func isActive(userId: String, logger: Logger) async throws -> Bool {
        let s = schema
        let rows = try await client.query(
            "SELECT withdrawn_at IS NULL FROM \(table: s, "users") WHERE user_id = \(userId)", logger: logger)
        for try await active in rows.decode(Bool.self) { return active }
        return true
    }

    // MARK: Rooms

    /// The room of the two users, created by `opener` when there is none (two concurrent opens meet in one row).
    func openRoom(
        opener: String, opponent: String, newId: String, at now: Date, on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Room {
        let s = schema
        let (first, second) = opener < opponent ? (opener, opponent) : (opponent, opener)
        try await connection.query(
            """
            INSERT INTO \(table: s, "rooms") (room_id, first_user, second_user, opened_by, created_at, updated_at)
            VALUES (\(newId), \(first), \(second), \(opener), \(now), \(now))
            ON CONFLICT (first_user, second_user) DO NOTHING
            """, logger: logger)
        let rows = try await connection.query(
            """
            SELECT room_id, opened_by, first_user, second_user, created_at, updated_at FROM \(table: s, "rooms")
            WHERE first_user = \(first) AND second_user = \(second)
            """, logger: logger)
        for try await row in rows.decode((String, String, String, String, Date, Date).self) {
            return Room(
                roomId: row.0, openedBy: row.1, firstUser: row.2, secondUser: row.3, createdAt: row.4,
                updatedAt: row.5)
        }
        throw APIError.internalError()
    }

    func room(_ roomId: String, on connection: PostgresConnection, forUpdate: Bool = false, logger: Logger)
        async throws -> Room?
    {
        let s = schema
        let query: PostgresQuery =
            forUpdate
            ? """
            SELECT room_id, opened_by, first_user, second_user, created_at, updated_at FROM \(table: s, "rooms")
            WHERE room_id = \(roomId) FOR UPDATE
            """
            : """
            SELECT room_id, opened_by, first_user, second_user, created_at, updated_at FROM \(table: s, "rooms")
            WHERE room_id = \(roomId)
            """
        let rows = try await connection.query(query, logger: logger)
        for try await row in rows.decode((String, String, String, String, Date, Date).self) {
            return Room(
                roomId: row.0, openedBy: row.1, firstUser: row.2, secondUser: row.3, createdAt: row.4,
                updatedAt: row.5)
        }
        return nil
    }

    /// The room with both participants (nil for an unknown id, or a room one of whose participants withdrew: it is
    /// gone for both), locked when asked.
    func liveRoom(_ roomId: String, on connection: PostgresConnection, forUpdate: Bool = false, logger: Logger)
        async throws -> (Room, [String: User])?
    {
        guard ObjectID.isValid(roomId),
            let room = try await room(roomId, on: connection, forUpdate: forUpdate, logger: logger)
        else { return nil }
        let users = try await users([room.firstUser, room.secondUser], on: connection, logger: logger)
        if room.participantIds.contains(where: { users[$0]?.withdrawn == true }) { return nil }
        return (room, users)
    }

    /// The rooms `userId` is in whose other participant is still there, most recently active first, with each
    /// room's last message.
    func rooms(of userId: String, limit: Int, on connection: PostgresConnection, logger: Logger) async throws
        -> [(Room, Message?)]
    {
        let s = schema
        let rows = try await connection.query(
            """
            SELECT r.room_id, r.opened_by, r.first_user, r.second_user, r.created_at, r.updated_at,
                   m.chat_id, m.sender_id, m.content, m.files, m.created_at
            FROM (
                SELECT * FROM \(table: s, "rooms") WHERE first_user = \(userId)
                UNION ALL
                SELECT * FROM \(table: s, "rooms") WHERE second_user = \(userId)
            ) r
            JOIN \(table: s, "users") a ON a.user_id = r.first_user AND a.withdrawn_at IS NULL
            JOIN \(table: s, "users") b ON b.user_id = r.second_user AND b.withdrawn_at IS NULL
            LEFT JOIN \(table: s, "messages") m ON m.chat_id = r.last_chat_id
            ORDER BY r.updated_at DESC, r.room_id DESC
            LIMIT \(limit)
            """, logger: logger)
        var rooms: [(Room, Message?)] = []
        for try await row in rows.decode(
            (String, String, String, String, Date, Date, String?, String?, String?, [String]?, Date?).self)
        {
            let room = Room(
                roomId: row.0, openedBy: row.1, firstUser: row.2, secondUser: row.3, createdAt: row.4,
                updatedAt: row.5)
            var last: Message?
            if let chatId = row.6, let sender = row.7, let content = row.8, let at = row.10 {
                last = Message(
                    chatId: chatId, roomId: room.roomId, senderId: sender, content: content, files: row.9 ?? [],
                    createdAt: at)
            }
            rooms.append((room, last))
        }
        return rooms
    }

    // MARK: Messages

    /// Stores the message; its time is stored as its exact millisecond (the apps' dates have milliseconds, and a
    /// cursor is one of them: `> cursor` must never return the message the cursor came from).
    func insert(_ message: Message, on connection: PostgresConnection, logger: Logger) async throws {
        let s = schema
        let millis = APIDateFormat.milliseconds(message.createdAt)
        try await connection.query(
            """
            INSERT INTO \(table: s, "messages") (chat_id, room_id, sender_id, content, files, created_at)
            VALUES (\(message.chatId), \(message.roomId), \(message.senderId), \(message.content), \(message.files),
                    'epoch'::timestamptz + \(millis)::float8 * interval '1 millisecond')
            """, logger: logger)
        try await connection.query(
            """
            UPDATE \(table: s, "rooms")
            SET updated_at = greatest(updated_at, 'epoch'::timestamptz + \(millis)::float8 * interval '1 millisecond'),
                last_chat_id = \(message.chatId)
            WHERE room_id = \(message.roomId)
            """, logger: logger)
    }

    func lastMessage(in roomId: String, on connection: PostgresConnection, logger: Logger) async throws -> Message? {
        try await messages(in: roomId, page: .newest, limit: 1, on: connection, logger: logger).last
    }

    enum Page: Sendable {
        /// The oldest messages after the instant (a client catching up).
        case after(Date)
        /// The oldest messages at or after the instant (the newer half of a G2 `before`, decision 0021).
        case from(Date)
        /// The newest messages before the instant (paging back).
        case before(Date)
        /// The newest messages.
        case newest
    }

    /// A page of a room's messages, oldest first, at most `limit`.
    func messages(in roomId: String, page: Page, limit: Int, on connection: PostgresConnection, logger: Logger)
        async throws -> [Message]
    {
        let s = schema
        let query: PostgresQuery
        switch page {
        case .after(let date):
            query = """
                SELECT chat_id, sender_id, content, files, created_at FROM \(table: s, "messages")
                WHERE room_id = \(roomId)
                  AND created_at > 'epoch'::timestamptz + \(APIDateFormat.milliseconds(date))::float8 * interval '1 millisecond'
                ORDER BY created_at, chat_id LIMIT \(limit)
                """
        case .from(let date):
            query = """
                SELECT chat_id, sender_id, content, files, created_at FROM \(table: s, "messages")
                WHERE room_id = \(roomId)
                  AND created_at >= 'epoch'::timestamptz + \(APIDateFormat.milliseconds(date))::float8 * interval '1 millisecond'
                ORDER BY created_at, chat_id LIMIT \(limit)
                """
        case .before(let date):
            query = """
                SELECT * FROM (
                    SELECT chat_id, sender_id, content, files, created_at FROM \(table: s, "messages")
                    WHERE room_id = \(roomId)
                      AND created_at < 'epoch'::timestamptz + \(APIDateFormat.milliseconds(date))::float8 * interval '1 millisecond'
                    ORDER BY created_at DESC, chat_id DESC LIMIT \(limit)
                ) page ORDER BY created_at, chat_id
                """
        case .newest:
            query = """
                SELECT * FROM (
                    SELECT chat_id, sender_id, content, files, created_at FROM \(table: s, "messages")
                    WHERE room_id = \(roomId)
                    ORDER BY created_at DESC, chat_id DESC LIMIT \(limit)
                ) page ORDER BY created_at, chat_id
                """
        }
        let rows = try await connection.query(query, logger: logger)
        var messages: [Message] = []
        for try await row in rows.decode((String, String, String, [String], Date).self) {
            messages.append(
                Message(
                    chatId: row.0, roomId: roomId, senderId: row.1, content: row.2, files: row.3, createdAt: row.4))
        }
        return messages
    }
}
