import Foundation
import SNSTestSupport
import Testing

/// Mobbie: a new member takes a random nickname, writes a text-only post and a post with four images (the
/// app's own limit), and shares one: a friend who opens the shared post sees it with its author's new nick
/// and loads its images; nobody without a token gets them.
@Suite("Mobbie journey through the gateway")
struct MobbieJourneyTests {
    @Test func randomNickTextAndImagePostsAndSharing() async throws {
        let gateway = try GatewayClient()
        let app = TestEnvironment.unique("mobbie_")
        let member = try await AppSession.signUp(gateway)
        let memberId = await member.userId
        let joinedNick = await member.nick

        let random = try await member.send("POST", "/v1/users/me/nick/random")
        #expect(random.status == 200, "\(random.text)")
        let nick = try #require(try random.json.string("nick"))
        #expect(nick != joinedNick)
        #expect(!nick.contains { $0.isWhitespace })
        await member.renamed(to: nick)
        #expect(try await member.send("GET", "/v1/users/me/profile").json.string("nick") == nick)

        let text = try await member.send("POST", "/v1/posts", json: #"{"content":"오늘의 한 줄","product_id":"\#(app)"}"#)
        #expect(text.status == 200)
        let textPost = try text.decode(APIModels.Post.self)
        #expect(textPost.files == [])
        let images = try await member.upload(Array(repeating: TestImages.png, count: 4))
        #expect(images.count == 4)
        let imagesJSON = String(decoding: try JSONSerialization.data(withJSONObject: images), as: UTF8.self)
        let shared = try await member.send(
            "POST", "/v1/posts", json: #"{"content":"사진 네 장","product_id":"\#(app)","files":\#(imagesJSON)}"#
        ).decode(APIModels.Post.self)
        let sharedId = shared.postId
        #expect(shared.files == images)

        // The share sheet carries the post id; the friend's app opens it.
        let friend = try await AppSession.signUp(gateway)
        try await eventually("the shared post shows the author's new nick") {
            let post = try await friend.send("GET", "/v1/posts/\(sharedId)")
            return (try? post.decode(APIModels.Post.self))?.creator.nick == nick
        }
        for path in images {
            let image = try await friend.image(path)
            #expect(image.status == 200)
            #expect(image.body == TestImages.png)
        }
        let outsider = try await gateway.send("GET", "/v1/\(images[0])")
        #expect(outsider.status == 401, "an image is not served without a token")
        let timeline = try await friend.send("GET", "/v1/posts/users/\(memberId)?next=&limit=10&product_id=\(app)")
        #expect(
            try items(timeline, as: APIModels.Post.self).map(\.postId) == [sharedId, textPost.postId])
    }
}
