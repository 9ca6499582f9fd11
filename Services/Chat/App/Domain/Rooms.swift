import Foundation
import SNSPlatform

/// Opening and listing rooms (one room per pair of users). Yourself → 400; an unknown or withdrawn opponent → 410.
/// A room whose other participant has withdrawn is gone for everyone: it leaves the list, and reading or writing
/// it is 410 (`Messages`), as a withdrawn user's posts leave every list.
struct Rooms: Sendable {
    let deps: ChatDependencies

    static let roomNotFound = "채팅방을 찾을 수 없습니다. (chat room not found)"
    static let notParticipant = "채팅방 참여자가 아닙니다. (not a participant of this chat room)"

    /// The room of the caller and `opponentId`, opened now if they have none.
    func open(with opponentId: String, by caller: Caller) async throws -> ChatRoomJSON {
        let (me, logger) = (caller.userId, caller.logger)
        guard !opponentId.isEmpty else { throw APIError.badRequest("필수값을 채워주세요: opponent_id (missing opponent_id)") }
        guard opponentId != me else {
            throw APIError.badRequest("자기 자신과는 채팅할 수 없습니다. (you cannot chat with yourself)")
        }
        return try await deps.postgres.transaction(logger: logger) { connection in
            let users = try await deps.store.users([me, opponentId], on: connection, logger: logger)
            guard let opponent = users[opponentId], !opponent.withdrawn else {
                throw APIError.gone("유저를 찾을 수 없습니다. (user not found)")
            }
            let room = try await deps.store.openRoom(
                opener: me, opponent: opponentId, newId: ObjectID.generate(), at: Date(), on: connection,
                logger: logger)
            let last = try await deps.store.lastMessage(in: room.roomId, on: connection, logger: logger)
            return Self.json(room, last: last, users: users)
        }
    }

    /// The caller's rooms, most recently active first.
    func list(for caller: Caller) async throws -> [ChatRoomJSON] {
        let (me, logger) = (caller.userId, caller.logger)
        return try await deps.postgres.withConnection { connection in
            let rooms = try await deps.store.rooms(of: me, limit: deps.historyLimit, on: connection, logger: logger)
            let ids = Set(rooms.flatMap { [$0.0.firstUser, $0.0.secondUser] })
            let users = try await deps.store.users(Array(ids), on: connection, logger: logger)
            return rooms.map { Self.json($0.0, last: $0.1, users: users) }
        }
    }

    static func json(_ room: ChatStore.Room, last: ChatStore.Message?, users: [String: ChatStore.User])
        -> ChatRoomJSON
    {
        ChatRoomJSON(
            roomId: room.roomId, createdAt: room.createdAt, updatedAt: room.updatedAt,
            participants: room.participantIds.map { participant(users[$0], id: $0) },
            lastChat: last.map { Messages.json($0, sender: participant(users[$0.senderId], id: $0.senderId)) })
    }

    /// A user as a participant; one the read model does not know yet shows with an empty nick.
    static func participant(_ user: ChatStore.User?, id: String) -> ChatUserJSON {
        user?.json ?? ChatUserJSON(userId: id, nick: "", profileImage: nil)
    }
}
