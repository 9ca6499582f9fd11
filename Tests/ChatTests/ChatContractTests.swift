import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

@testable import ChatService

/// The chat routes' keys, status codes and rules, as BuyOrNot, KeyCat and WeeMo send and decode them.
@Suite("Chat rooms and messages")
struct ChatContractTests {
    @Test func openingARoomGivesTheSameRoomToBothAndTheKeysTheAppsDecode() async throws {
        try await withChatService { chat in
            let (me, you) = (try await chat.user(), try await chat.user(image: "uploads/profiles/x.jpg"))
            let opened = try await chat.send(.post, "/v1/chats", as: me, json: #"{"opponent_id":"\#(you.userId)"}"#)
            #expect(opened.status == 200, "\(opened.text)")
            let json = try opened.json
            #expect(Set(json.keys) == ["room_id", "createdAt", "updatedAt", "participants"], "no lastChat yet")
            let millisecondsUTC = try Regex(#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#)
            #expect((json.string("createdAt") ?? "").wholeMatch(of: millisecondsUTC) != nil)
            let room = try opened.decode(APIModels.ChatRoom.self)
            #expect(
                room.participants == [
                    .init(userId: me.userId, nick: me.nick, profileImage: nil),
                    .init(userId: you.userId, nick: you.nick, profileImage: "uploads/profiles/x.jpg"),
                ])
            #expect(try await chat.room(me, with: you) == room.roomId)
            #expect(try await chat.room(you, with: me) == room.roomId, "the other side finds the same room")
        }
    }

    @Test func yourselfIs400AnUnknownOrWithdrawnOpponent410AndNoTokenOrKeyAreRefused() async throws {
        try await withChatService { chat in
            let me = try await chat.user()
            let body = { (id: String) in #"{"opponent_id":"\#(id)"}"# }
            #expect(try await chat.send(.post, "/v1/chats", as: me, json: body(me.userId)).status == 400)
            #expect(try await chat.send(.post, "/v1/chats", as: me, json: body(ObjectID.generate())).status == 410)
            #expect(try await chat.send(.post, "/v1/chats", as: me, json: "{}").status == 400)
            let gone = try await chat.user()
            try await chat.withdraw(gone)
            #expect(try await chat.send(.post, "/v1/chats", as: me, json: body(gone.userId)).status == 410)
            #expect(try await chat.send(.get, "/v1/chats", as: nil).status == 401)
            #expect(try await chat.send(.get, "/v1/chats", as: me, apiKey: .some(nil)).status == 420)
        }
    }

    @Test func messagesHaveTheirKeysAndPageAfterACursorInAnyTimeZone() async throws {
        try await withChatService { chat in
            let (me, you) = (try await chat.user(), try await chat.user())
            let room = try await chat.room(me, with: you)
            let first = try await chat.say("안녕하세요", in: room, as: me)
            let second = try await chat.say("네 안녕하세요", in: room, as: you)
            let third = try await chat.say("구매 가능할까요?", in: room, as: me)
            #expect(first.roomId == room && first.sender.userId == me.userId && first.sender.nick == me.nick)
            #expect(first.files == [] && first.createdAt < second.createdAt && second.createdAt < third.createdAt)

            let sent = try await chat.send(.post, "/v1/chats/\(room)", as: me, json: #"{"content":"BuyOrNot"}"#)
            #expect(Set(try sent.json.keys) == ["chat_id", "room_id", "content", "createdAt", "sender", "files"])

            let all = try await chat.send(.get, "/v1/chats/\(room)", as: you)
            let everything = try all.decode(APIModels.DataList<APIModels.Chat>.self).data
            #expect(everything.map(\.content) == ["안녕하세요", "네 안녕하세요", "구매 가능할까요?", "BuyOrNot"])

            // KeyCat sends the phone's offset (+09:00), percent-encoded; the instant is what counts.
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            formatter.timeZone = TimeZone(secondsFromGMT: 9 * 3600)
            let cursor = formatter.string(from: first.createdAt)
            #expect(cursor.hasSuffix("+09:00"))
            let encoded = cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor
            let after = try await chat.send(.get, "/v1/chats/\(room)?cursor_date=\(encoded)", as: me)
            #expect(
                try after.decode(APIModels.DataList<APIModels.Chat>.self).data.map(\.chatId)
                    == [second.chatId, third.chatId, everything[3].chatId])
            let epoch = try await chat.send(
                .get, "/v1/chats/\(room)?cursor_date=1970-01-01T09:00:00.000%2B09:00", as: me)
            #expect(try epoch.decode(APIModels.DataList<APIModels.Chat>.self).data.count == 4)
            let before = try await chat.send(
                .get, "/v1/chats/\(room)?before=\(APIDateFormat.string(from: third.createdAt))", as: me)
            #expect(
                try before.decode(APIModels.DataList<APIModels.Chat>.self).data.map(\.chatId) == [
                    first.chatId, second.chatId,
                ])
            #expect(try await chat.send(.get, "/v1/chats/\(room)?cursor_date=yesterday", as: me).status == 400)
        }
    }

    @Test func onlyParticipantsReadOrWriteAndAnUnknownRoomIs410() async throws {
        try await withChatService { chat in
            let (me, you, stranger) = (try await chat.user(), try await chat.user(), try await chat.user())
            let room = try await chat.room(me, with: you)
            #expect(try await chat.send(.get, "/v1/chats/\(room)", as: stranger).status == 445)
            #expect(
                try await chat.send(.post, "/v1/chats/\(room)", as: stranger, json: #"{"content":"hi"}"#).status == 445)
            #expect(try await chat.send(.get, "/v1/chats/\(ObjectID.generate())", as: me).status == 410)
            #expect(try await chat.send(.get, "/v1/chats/not-a-room", as: me).status == 410)
            #expect(
                try await chat.send(.post, "/v1/chats/\(ObjectID.generate())", as: me, json: #"{"content":"x"}"#).status
                    == 410)
        }
    }

    @Test func aMessageNeedsContentOrFilesAndOnlyFilesMediaStoredForTheSender() async throws {
        try await withChatService { chat in
            let (me, you) = (try await chat.user(), try await chat.user())
            let room = try await chat.room(me, with: you)
            let signer = try MediaPathSigner(secret: testMediaSigningKey)
            let mine = signer.issue(kind: .posts, fileExtension: "jpg", owner: me.userId).string
            let theirs = signer.issue(kind: .posts, fileExtension: "jpg", owner: you.userId).string
            let post = { (json: String) in try await chat.send(.post, "/v1/chats/\(room)", as: me, json: json) }
            #expect(try await post(#"{"content":"","files":[]}"#).status == 400)
            #expect(try await post(#"{"content":"\#(String(repeating: "가", count: 1_001))"}"#).status == 400)
            #expect(try await post(#"{"content":"","files":["\#(theirs)"]}"#).status == 400)
            #expect(try await post(#"{"content":"","files":["../../etc/passwd"]}"#).status == 400)
            let photo = try await post(#"{"content":"","files":["\#(mine)"]}"#)
            #expect(photo.status == 200, "\(photo.text)")
            let chatMessage = try photo.decode(APIModels.Chat.self)
            #expect(chatMessage.content == "" && chatMessage.files == [mine], "content is a string even when empty")
        }
    }

    @Test func myRoomsAreListedMostRecentlyActiveFirstWithTheirLastMessageAndWithoutWithdrawnOpponents() async throws {
        try await withChatService { chat in
            let (me, you, them, gone) = (
                try await chat.user(), try await chat.user(), try await chat.user(), try await chat.user()
            )
            let withYou = try await chat.room(me, with: you)
            let withThem = try await chat.room(them, with: me)
            let withGone = try await chat.room(me, with: gone)
            _ = try await chat.say("first", in: withYou, as: you)
            let last = try await chat.say("latest", in: withThem, as: me)
            _ = try await chat.say("bye", in: withGone, as: gone)
            try await chat.withdraw(gone)

            let listed = try await chat.send(.get, "/v1/chats", as: me)
            let rooms = try listed.decode(APIModels.DataList<APIModels.ChatRoom>.self).data
            #expect(rooms.map(\.roomId) == [withThem, withYou])
            #expect(rooms.first?.lastChat == last)
            #expect(rooms.first?.participants.map(\.userId) == [them.userId, me.userId], "opener first")
            #expect(try await chat.send(.get, "/v1/chats/\(withGone)", as: me).status == 410)
            #expect(try await chat.send(.get, "/v1/chats", as: you).status == 200)
        }
    }
}
