import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// The two G2 apps (decision 0021) through the gateway, as their routers and DTOs call the server.
/// - WeeMo: the host joins (the join answers tokens), the guest signs in with Kakao; the host uploads photos, creates a meet (category `meet`, `value1…6`, price, a
///   place), finds it on the map (`/v1/posts/geolocation`, nearest first) and by title, likes it, reserves with a
///   comment and lists the comments, follows the host (`follow_status`), reads the host's profile (`email`
///   required), renames itself with JSON, chats (`before` both ways), refreshes a rotated token in parallel.
/// - mychelin: logs in, writes a restaurant review (`content1…3`, the misspelt `logitude`), lists its category with
///   `next=`, searches the map farthest first, loads an image at `{base}/v1/` + path, follows
///   (`following_status`).
@Suite("G2 journeys (WeeMo, mychelin) through the gateway")
struct G2JourneyTests {
    typealias Post = APIModels.G2Post

    @Test func weeMoHostsAMeetAGuestFindsReservesFollowsAndChats() async throws {
        let gateway = try GatewayClient()
        let host = try await G2Session.join(gateway)
        let guest = try await G2Session.kakao(gateway)  // WeeMo's Kakao sign-in
        let (hostId, guestId) = (await host.userId, await guest.userId)

        let photos = try await host.upload("/v1/posts/files", [TestImages.png])
        #expect(photos.count == 1 && photos[0].hasPrefix("/uploads/posts/"), "\(photos)")
        let title = TestEnvironment.unique("보드게임")
        let (latitude, longitude) = (37.5665 + Double.random(in: 0..<0.01), 126.978)
        let created = try await host.send(
            "POST", "/v1/posts",
            json: """
                {"title":"\(title)","content":"같이 해요 #보드게임","category":"meet","files":["\(photos[0])"],"price":5000,
                 "value1":"4","value2":"0","value3":"202511211400, 3","value4":"s|스터디룸A|서울|\(photos[0])",
                 "value5":"2025-11-26T05:00:00.000Z","value6":"2025-11-27T05:00:00.000Z",
                 "latitude":\(latitude),"longitude":\(longitude)}
                """)
        #expect(created.status == 200, "\(created.text)")
        let meet = try created.decode(Post.self)
        #expect(meet.category == "meet" && meet.value6 == "2025-11-27T05:00:00.000Z" && meet.files == photos)
        #expect(try await host.image("/v1" + photos[0]).body == TestImages.png, "{base}/v1{path}")
        // A meet's video: stored by its bytes as .mp4 (WeeMo tells videos by the path), played with Range requests.
        let videos = try await host.upload("/v1/posts/files", [TestImages.mp4])
        #expect(videos.count == 1 && videos[0].hasSuffix(".mp4"), "\(videos)")
        let played = try await gateway.send(
            "GET", "/v1" + videos[0],
            headers: try G2Session.headers(["Authorization": await host.accessToken, "Range": "bytes=0-7"]),
            withKey: false)
        #expect(played.status == 206 && played.header("Content-Type") == "video/mp4", "\(played.status)")
        #expect(played.body == Array(TestImages.mp4.prefix(8)))

        // The guest's map (zoom 13: 3 km, nearest first) and its title search.
        let map = try await guest.send(
            "GET",
            "/v1/posts/geolocation?category=meet&latitude=\(latitude)&longitude=\(longitude)&maxDistance=3000&order_by=distance&sort_by=asc"
        )
        #expect(map.status == 200, "\(map.text)")
        let near = try map.decode(APIModels.Page<Post>.self).data
        #expect(near.first?.postId == meet.postId && near.first?.distance == 0)
        let encoded = title.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let found = try await guest.send("GET", "/v1/posts/search?category=meet&title=\(encoded)")
        #expect(try found.decode(APIModels.Page<Post>.self).data.map(\.postId) == [meet.postId])

        // Reservation: like (the desired state), then a comment `#yyyyMMddHH00, hours`; the comment sheet lists it.
        let liked = try await guest.send("POST", "/v1/posts/\(meet.postId)/like", json: #"{"like_status":true}"#)
        #expect(try liked.json.bool("like_status") == true)
        let reserved = try await guest.send(
            "POST", "/v1/posts/\(meet.postId)/comments", json: ##"{"content":"#202511240100, 3"}"##)
        #expect(reserved.status == 200, "\(reserved.text)")
        let comments = try await host.send("GET", "/v1/posts/\(meet.postId)/comments")
        #expect(try comments.json.keys == ["data"])
        let reread = try await host.send("GET", "/v1/posts/\(meet.postId)").decode(Post.self)
        #expect(reread.likes == [guestId] && reread.commentCount == 1)

        // Follow (WeeMo decodes `follow_status`), the host's profile (`email` required, another's is ""), a rename.
        let followed = try await guest.send("POST", "/v1/follow/\(hostId)")
        #expect(followed.status == 200, "\(followed.text)")
        #expect(try followed.json.bool("follow_status") == true && (try followed.json.bool("following_status")) == true)
        let profile = try await guest.send("GET", "/v1/users/\(hostId)/profile")
        #expect(try profile.json.string("email") == "")
        let renamed = TestEnvironment.unique("weemo")
        let edited = try await guest.send("PUT", "/v1/users/me/profile", json: #"{"nick":"\#(renamed)"}"#)
        #expect(edited.status == 200, "\(edited.text)")
        #expect(try edited.json.string("nick") == renamed && (try edited.json.string("user_id")) == guestId)
        let feed = try await guest.send("GET", "/v1/posts/feed?category=meet")
        #expect(try feed.decode(APIModels.Page<Post>.self).data.first?.postId == meet.postId)

        // Chat with the host: `before` brings the older page and what came after it (WeeMo's sync and load-more).
        let room = try await guest.send("POST", "/v1/chats", json: #"{"opponent_id":"\#(hostId)"}"#)
        #expect(room.status == 200, "\(room.text)")
        let roomId = try #require(try room.json.string("room_id"))
        var sent: [APIModels.Chat] = []
        for text in ["안녕하세요", "참여할게요", "감사합니다"] {
            sent.append(try await guest.send("POST", "/v1/chats/\(roomId)", json: #"{"content":"\#(text)"}"#).decode())
        }
        let middle = ISO8601DateFormatter().string(from: sent[1].createdAt)  // WeeMo: no fractional seconds
        let history = try await host.send("GET", "/v1/chats/\(roomId)?before=\(middle)")
        #expect(history.status == 200, "\(history.text)")
        let contents = try history.decode(APIModels.DataList<APIModels.Chat>.self).data.map(\.content)
        #expect(contents.contains("안녕하세요") && contents.contains("감사합니다"), "\(contents)")
        // An instant that is exactly a message's date: that message is in the answer too, once (the newer half starts
        // at the instant itself).
        let exact = APIDateFormat.string(from: sent[1].createdAt)
        let atTheInstant = try await host.send("GET", "/v1/chats/\(roomId)?before=\(exact)")
        #expect(
            try atTheInstant.decode(APIModels.DataList<APIModels.Chat>.self).data.map(\.chatId) == sent.map(\.chatId))

        // Tokens: the access token expires; two requests refresh in parallel with the same refresh token (WeeMo has
        // no lock); each answer's refresh token works afterwards.
        try await host.letAccessTokenExpire()
        let expired = await host.accessToken
        let oldRefresh = await host.refreshToken
        async let first = gateway.send(
            "GET", "/v1/auth/refresh",
            headers: try G2Session.headers(["Authorization": expired, "RefreshToken": oldRefresh]), withKey: false)
        async let second = gateway.send(
            "GET", "/v1/auth/refresh",
            headers: try G2Session.headers(["Authorization": expired, "RefreshToken": oldRefresh]), withKey: false)
        let answers = try await [first, second]
        #expect(answers.map(\.status) == [200, 200], "\(answers.map(\.text))")
        let rotated = try answers.map { try #require(try $0.json.string("refreshToken")) }
        #expect(!rotated.contains(oldRefresh) && Set(rotated).count == 2, "rotated, one new token per refresh")
        for token in rotated {
            let again = try await gateway.send(
                "GET", "/v1/auth/refresh",
                headers: try G2Session.headers(["Authorization": expired, "RefreshToken": token]), withKey: false)
            #expect(again.status == 200, "\(again.text)")
        }
        _ = try await host.send("GET", "/v1/users/me/profile")
        #expect(await host.refreshes == 1)
    }

    @Test func mychelinWritesAReviewAndFindsItOnTheMap() async throws {
        let gateway = try GatewayClient()
        let me = try await G2Session.join(gateway, refreshHeader: "Refresh")
        let (latitude, longitude) = (37.49 + Double.random(in: 0..<0.01), 127.02)
        let category = "koreanBbq"
        let review = try await me.send(
            "POST", "/v1/posts",
            json: """
                {"category":"\(category)","title":"마포갈비","content":"맛있어요","content1":"서울 마포구","content2":"4.5",
                 "content3":"#갈비","logitude":\(longitude),"latitude":\(latitude)}
                """)
        #expect(review.status == 200, "\(review.text)")
        let post = try review.decode(Post.self)
        #expect(post.content2 == "4.5" && post.geolocation.longitude == longitude)

        let listed = try await me.send("GET", "/v1/posts?category=\(category)&limit=10&next=")
        let page = try listed.decode(APIModels.Page<Post>.self)
        #expect(page.data.first?.postId == post.postId)
        let map = try await me.send(
            "GET",
            "/v1/posts/geolocation?category=&latitude=\(latitude)&longitude=\(longitude)&maxDistance=150&order_by=distance&sort_by=desc"
        )
        #expect(map.status == 200, "\(map.text)")
        #expect(try map.decode(APIModels.Page<Post>.self).data.map(\.postId).contains(post.postId))

        // Images: mychelin builds `{base}/v1` + "/" + path, so a G2 path gives `//`, which the gateway merges.
        let photos = try await me.upload("/v1/posts/files", [TestImages.png])
        #expect(try await me.image("/v1/" + photos[0]).body == TestImages.png)

        let other = try await G2Session.join(gateway)
        let follow = try await me.send("POST", "/v1/follow/\(await other.userId)")
        #expect(Set(try follow.json.keys) == ["nick", "opponent_nick", "following_status", "follow_status"])

        // mychelin's refresh header is `Refresh`; the answer holds both tokens.
        try await me.letAccessTokenExpire()
        #expect(try await me.send("GET", "/v1/users/me/profile").status == 200)
        #expect(await me.refreshes == 1)
    }
}
