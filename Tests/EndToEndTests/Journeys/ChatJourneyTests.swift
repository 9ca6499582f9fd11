import Foundation
import SNSTestSupport
import Testing

/// The two apps that use the original server's chat, as they call it (decision 0020).
/// - BuyOrNot: a buyer opens a room with the seller from a post, sends text, the seller lists its rooms (polled every
///   second by the app) and reads the history without a cursor; sender and participants show their nicks.
/// - KeyCat: opens the room, uploads a photo to the room (multipart `files`, `Keycat.jpg`), sends it with `files`
///   (and an empty content), fetches the history from the epoch in the phone's time zone (`+09:00`), sees the photo;
///   the other side's list shows the room with that last message.
@Suite("Chat journeys (BuyOrNot, KeyCat) through the gateway")
struct ChatJourneyTests {
    typealias Chat = APIModels.Chat
    typealias Room = APIModels.ChatRoom
    typealias DataList = APIModels.DataList

    @Test func buyOrNotBuyerOpensARoomFromAPostAndTheSellerAnswers() async throws {
        let gateway = try GatewayClient()
        let seller = try await AppSession.signUp(gateway)
        let buyer = try await AppSession.signUp(gateway)
        let sellerId = await seller.userId, buyerId = await buyer.userId, buyerNick = await buyer.nick

        let opened = try await buyer.send("POST", "/v1/chats", json: #"{"opponent_id":"\#(sellerId)"}"#)
        #expect(opened.status == 200, "\(opened.text)")
        let room = try opened.decode(Room.self)
        #expect(room.participants.map(\.userId) == [buyerId, sellerId] && room.lastChat == nil)

        let asked = try await buyer.send("POST", "/v1/chats/\(room.roomId)", json: #"{"content":"살 수 있을까요?"}"#)
        #expect(asked.status == 200, "\(asked.text)")
        let question = try asked.decode(Chat.self)
        #expect(question.sender.userId == buyerId && question.sender.nick == buyerNick && question.files == [])

        // The seller's room list (BuyOrNot polls it every second), then the room's whole history (no cursor).
        let rooms = try await seller.send("GET", "/v1/chats").decode(DataList<Room>.self).data
        #expect(rooms.map(\.roomId) == [room.roomId])
        #expect(rooms.first?.lastChat == question)
        let again = try await seller.send("POST", "/v1/chats", json: #"{"opponent_id":"\#(buyerId)"}"#)
        #expect(try again.decode(Room.self).roomId == room.roomId, "the seller's open finds the same room")
        let answered = try await seller.send("POST", "/v1/chats/\(room.roomId)", json: #"{"content":"네 가능해요"}"#)
        #expect(answered.status == 200)
        let history = try await buyer.send("GET", "/v1/chats/\(room.roomId)").decode(DataList<Chat>.self).data
        #expect(history.map(\.content) == ["살 수 있을까요?", "네 가능해요"])
        #expect(history.map(\.sender.userId) == [buyerId, sellerId])
    }

    @Test func keyCatSendsAPhotoToTheRoomAndFetchesFromTheEpochInItsTimeZone() async throws {
        let gateway = try GatewayClient()
        let me = try await AppSession.signUp(gateway)
        let you = try await AppSession.signUp(gateway)
        let youId = await you.userId
        let roomId = try await me.send("POST", "/v1/chats", json: #"{"opponent_id":"\#(youId)"}"#)
            .decode(Room.self).roomId

        var form = MultipartForm()
        form.file("files", filename: "Keycat.jpg", mimeType: "image/jpeg", bytes: TestImages.png)
        let uploaded = try await me.send("POST", "/v1/chats/\(roomId)/files", form: form)
        #expect(uploaded.status == 200, "\(uploaded.text)")
        let paths = try uploaded.decode(APIModels.UploadedFiles.self).files
        #expect(paths.count == 1 && paths[0].hasPrefix("uploads/chats/"))
        let sent = try await me.send(
            "POST", "/v1/chats/\(roomId)", json: #"{"content":"","files":["\#(paths[0])"]}"#)
        #expect(sent.status == 200, "\(sent.text)")
        #expect(try sent.decode(Chat.self).files == paths)

        // KeyCat's cursor: Date(timeIntervalSince1970: 0) formatted in the phone's zone, percent-encoded.
        let history = try await you.send("GET", "/v1/chats/\(roomId)?cursor_date=1970-01-01T09%3A00%3A00.000%2B09%3A00")
        #expect(history.status == 200, "\(history.text)")
        let chats = try history.decode(DataList<Chat>.self).data
        #expect(chats.map(\.files) == [paths] && chats.first?.content == "")
        #expect(try await you.image(paths[0]).body == TestImages.png)
        let rooms = try await you.send("GET", "/v1/chats").decode(DataList<Room>.self).data
        #expect(rooms.first?.roomId == roomId && rooms.first?.lastChat?.files == paths)
    }
}
