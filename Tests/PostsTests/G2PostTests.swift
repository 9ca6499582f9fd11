import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

@testable import PostsService

/// The G2 generation of posts (decision 0021): `ProductId`, the G2 post shape, app-scoped lists with `category`,
/// distance search, title search, the comment list and the following feed at `/v1/posts/feed`.
@Suite("Posts G2")
struct G2PostTests {
    /// Metres along a meridian on earthdistance's sphere (radius 6 378 168 m).
    static let metresPerDegree = 6_378_168 * Double.pi / 180
    static let seoul = (latitude: 37.5665, longitude: 126.9780)

    @Test func aG2PostHasEveryKeyEitherAppDecodesInBothSpellings() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let file = api.file(for: alice)
            let category = TestEnvironment.unique("meet")
            let created = try await api.g2(
                .post, "/v1/posts", as: alice,
                json: """
                    {"category":"\(category)","title":"보드게임","content":"같이 해요 #보드","price":5000,
                     "value1":"4","value2":"0","value6":"2025-11-26T05:00:00.000Z","files":["/\(file)"],
                     "latitude":37.5665,"longitude":126.978}
                    """)
            #expect(created.status == 200, "\(created.text)")
            #expect(
                Set(try created.json.keys) == [
                    "post_id", "category", "title", "price", "content", "content1", "content2", "value1", "value2",
                    "value6", "createdAt", "creator", "files", "likes", "likes2", "buyers", "hashTags", "comments",
                    "comment_count", "geolocation",
                ])
            let post = try created.decode(APIModels.G2Post.self)
            #expect(post.category == category)
            #expect(post.value1 == "4" && post.content1 == "4" && post.value6 == "2025-11-26T05:00:00.000Z")
            #expect(post.files == ["/\(file)"], "paths keep G2's leading slash")
            #expect(post.geolocation == .init(longitude: 126.978, latitude: 37.5665))
            #expect(post.commentCount == 0 && post.comments.isEmpty && post.hashTags == ["보드"])
            #expect(try created.json.string("createdAt")?.hasSuffix("Z") == true)

            // mychelin: content1…5 and the misspelt `logitude`; its rating in content2 comes back in both spellings.
            let mychelin = try await api.g2(
                .post, "/v1/posts", as: alice,
                json:
                    #"{"category":"\#(category)","title":"맛집","content":"좋아요","content1":"서울","content2":"4.5","logitude":127.5,"latitude":37.1}"#
            ).decode(APIModels.G2Post.self)
            #expect(mychelin.content2 == "4.5" && mychelin.value2 == "4.5")
            #expect(mychelin.geolocation == .init(longitude: 127.5, latitude: 37.1))

            // A feed post: an empty title, no place — `geolocation` is still there, at 0, 0.
            let feed = try await api.g2(
                .post, "/v1/posts", as: alice,
                json: #"{"category":"\#(category)","title":"","content":"hi","files":[]}"#)
            #expect(try feed.decode(APIModels.G2Post.self).geolocation == .init(longitude: 0, latitude: 0))

            // An edit without coordinates keeps them; one with only a latitude is refused.
            let edited = try await api.g2(.put, "/v1/posts/\(post.postId)", as: alice, json: #"{"value3":"x"}"#)
            #expect(try edited.decode(APIModels.G2Post.self).geolocation == post.geolocation)
            #expect(
                try await api.g2(.put, "/v1/posts/\(post.postId)", as: alice, json: #"{"latitude":1}"#).status == 400)
            #expect(
                try await api.g2(
                    .post, "/v1/posts", as: alice, json: #"{"category":"c","latitude":91,"longitude":0}"#
                ).status == 400)
        }
    }

    /// `earth`, the indexed place, is set by the document trigger since migration 108 (it was a generated column):
    /// it must still equal `ll_to_earth(latitude, longitude)` after a new post, a like, an edit of the place, an edit
    /// removing it, and even a direct write of the column.
    @Test func theIndexedPlaceFollowsTheCoordinatesThroughEveryChange() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let category = TestEnvironment.unique("place")
            func placeIsDerivedAndPresent(_ postId: String) async throws -> Bool {
                let derived = try await placeIsDerived(postId)
                let present = try await hasPlace(postId)
                return derived && present
            }
            func placeIsDerived(_ postId: String) async throws -> Bool {
                try await api.sql(
                    """
                    SELECT (earth IS NOT DISTINCT FROM public.ll_to_earth(latitude, longitude))::int
                    FROM posts.posts WHERE post_id = \(postId)
                    """, Int.self) == [1]
            }
            func hasPlace(_ postId: String) async throws -> Bool {
                try await api.sql(
                    "SELECT (earth IS NOT NULL)::int FROM posts.posts WHERE post_id = \(postId)", Int.self) == [1]
            }
            let created = try await api.g2(
                .post, "/v1/posts", as: alice,
                json: #"{"category":"\#(category)","title":"t","latitude":37.5665,"longitude":126.978}"#)
            let postId = try created.decode(APIModels.G2Post.self).postId
            #expect(try await placeIsDerivedAndPresent(postId))
            #expect(
                try await api.g2(.post, "/v1/posts/\(postId)/like", as: alice, json: #"{"like_status":true}"#).status
                    == 200)
            #expect(try await placeIsDerivedAndPresent(postId))
            let moved = try await api.g2(
                .put, "/v1/posts/\(postId)", as: alice, json: #"{"latitude":-33.8688,"longitude":151.2093}"#)
            #expect(moved.status == 200, "\(moved.text)")
            #expect(try await placeIsDerivedAndPresent(postId))
            _ = try await api.sql("UPDATE posts.posts SET earth = NULL WHERE post_id = \(postId) RETURNING 1", Int.self)
            #expect(try await placeIsDerivedAndPresent(postId), "the column stays derived")
            let nowhere = try await api.g2(
                .post, "/v1/posts", as: alice, json: #"{"category":"\#(category)","title":"no place"}"#)
            let nowhereId = try nowhere.decode(APIModels.G2Post.self).postId
            #expect(try await placeIsDerived(nowhereId))
            let nowherePlace = try await hasPlace(nowhereId)
            #expect(!nowherePlace)
        }
    }

    @Test func productIdIsCheckedAndG2OnlyRoutesRequireIt() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            #expect(try await api.send(.get, "/v1/posts", as: alice, productId: "someone-else").status == 421)
            #expect(try await api.send(.get, "/v1/posts", as: alice, productId: "").status == 421)
            for path in [
                "/v1/posts/feed", "/v1/posts/search?title=a", "/v1/posts/geolocation?latitude=1&longitude=1",
                "/v1/posts/\(ObjectID.generate())/comments",
            ] {
                let reply = try await api.send(.get, path, as: alice)
                #expect(reply.status == 421, "\(path): \(reply.status)")
                #expect(try reply.json.keys == ["message"])
            }
            // The same path without the header is G1, unchanged: G2's spellings are not read there.
            #expect(try await api.send(.get, "/v1/posts?limit=1", as: alice).status == 200)
            #expect(try await api.send(.post, "/v1/posts", as: alice, json: #"{"category":"x"}"#).status == 400)
            let g1 = try await api.send(
                .post, "/v1/posts", as: alice, json: #"{"product_id":"x","latitude":"37.5","value1":"v"}"#)
            #expect(g1.status == 200, "\(g1.text)")
            #expect(try g1.json.keys.contains("content1") == false)
        }
    }

    @Test func onePostIsSeenByEveryGenerationInItsOwnShapeAndListsKeepToTheApp() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let product = TestEnvironment.unique("g1p")
            let g1 = try await api.createPost(
                as: alice, #"{"product_id":"\#(product)","title":"g1","content1":"a"}"#)
            let g1Id = try #require(g1.string("post_id"))
            let asG2 = try await api.g2(.get, "/v1/posts/\(g1Id)", as: alice).decode(APIModels.G2Post.self)
            #expect(asG2.category == product && asG2.value1 == "a" && asG2.content == "")
            #expect(asG2.geolocation == .init(longitude: 0, latitude: 0))
            // A G1 post keeps no G2 document (migration 111): G2 reads derive it, comments included.
            _ = try await api.send(.post, "/v1/posts/\(g1Id)/comments", as: alice, json: #"{"content":"on g1"}"#)
            let g1Comments = try await api.g2(.get, "/v1/posts/\(g1Id)/comments", as: alice)
            #expect((try g1Comments.json["data"] as? [[String: Any]])?.map { $0["content"] as? String } == ["on g1"])
            let commented = try await api.g2(.get, "/v1/posts/\(g1Id)", as: alice).decode(APIModels.G2Post.self)
            #expect(commented.commentCount == 1 && commented.category == product)

            let g2 = try await api.g2(
                .post, "/v1/posts", as: alice,
                json: #"{"category":"\#(product)","title":"g2","content":"x","value7":"v","latitude":1,"longitude":2}"#
            ).decode(APIModels.G2Post.self)
            let asG1 = try await api.send(.get, "/v1/posts/\(g2.postId)", as: alice)
            #expect(
                try asG1.json.keys == [
                    "post_id", "product_id", "title", "content", "createdAt", "creator", "files", "likes",
                    "likes2", "buyers", "hashTags", "comments",
                ])
            // G1 lists show every post of the product; G2 lists only the app's own.
            #expect(
                try await api.send(.get, "/v1/posts?product_id=\(product)", as: alice).postIds == [g2.postId, g1Id])
            let appPage = try await api.g2(.get, "/v1/posts?category=\(product)", as: alice)
            #expect(try appPage.decode(APIModels.Page<APIModels.G2Post>.self).data.map(\.postId) == [g2.postId])
            let mine = try await api.g2(.get, "/v1/posts/users/\(alice.userId)?category=\(product)", as: alice)
            #expect(try mine.decode(APIModels.Page<APIModels.G2Post>.self).data.map(\.postId) == [g2.postId])
            #expect(try mine.decode(APIModels.Page<APIModels.G2Post>.self).nextCursor == "0")
        }
    }

    @Test func nearbyPostsAreExactAtTheEdgesAndPagedWithoutSkipsOrRepeats() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let category = TestEnvironment.unique("near")
            func post(_ title: String, _ latitude: Double, _ longitude: Double) async throws -> String {
                let reply = try await api.g2(
                    .post, "/v1/posts", as: alice,
                    json:
                        #"{"category":"\#(category)","title":"\#(title)","latitude":\#(latitude),"longitude":\#(longitude)}"#
                )
                #expect(reply.status == 200, "\(reply.text)")
                return try reply.decode(APIModels.G2Post.self).postId
            }
            func north(_ metres: Double) -> Double { Self.seoul.latitude + metres / Self.metresPerDegree }
            let here = [
                try await post("here-1", Self.seoul.latitude, Self.seoul.longitude),
                try await post("here-2", Self.seoul.latitude, Self.seoul.longitude),
                try await post("here-3", Self.seoul.latitude, Self.seoul.longitude),
            ]
            let at50 = try await post("50m", north(50), Self.seoul.longitude)
            let at120 = try await post("120m", north(120), Self.seoul.longitude)
            let at1k = try await post("1km", north(1000), Self.seoul.longitude)
            _ = try await api.g2(.post, "/v1/posts", as: alice, json: #"{"category":"\#(category)","title":"nowhere"}"#)

            func nearby(_ query: String) async throws -> APIModels.Page<APIModels.G2Post> {
                let reply = try await api.g2(
                    .get,
                    "/v1/posts/geolocation?category=\(category)&latitude=\(Self.seoul.latitude)&longitude=\(Self.seoul.longitude)&\(query)",
                    as: alice)
                #expect(reply.status == 200, "\(query): \(reply.text)")
                return try reply.decode()
            }
            let within150 = try await nearby("maxDistance=150")
            #expect(within150.data.map(\.postId) == here + [at50, at120], "nearest first, ties by age")
            let distances = within150.data.map { $0.distance ?? -1 }
            #expect(distances[0...2].allSatisfy { $0 == 0 })
            #expect(abs(distances[3] - 50) < 0.01 && abs(distances[4] - 120) < 0.01, "\(distances)")
            #expect(within150.nextCursor == "0")
            #expect(
                try await nearby("maxDistance=150&order_by=distance&sort_by=desc").data.map(\.postId)
                    == [at120, at50] + here.reversed())
            #expect(
                try await nearby("maxDistance=150&order_by=createdAt").data.map(\.postId)
                    == [at120, at50] + here.reversed())
            #expect(try await nearby("maxDistance=0").data.map(\.postId) == here)
            #expect(try await nearby("maxDistance=1e9").data.map(\.postId) == here + [at50, at120, at1k])
            #expect(try await nearby("").data.count == 6, "no maxDistance: the whole sphere")

            // Pages of two, in every order: the same sequence as one page, no post twice, none left out.
            for order in ["", "&sort_by=desc", "&order_by=createdAt", "&order_by=createdAt&sort_by=asc"] {
                let whole = try await nearby("maxDistance=5000\(order)").data.map(\.postId)
                var paged: [String] = []
                var next = ""
                repeat {
                    let page = try await nearby("maxDistance=5000&limit=2&next=\(next)\(order)")
                    paged += page.data.map(\.postId)
                    next = page.nextCursor
                } while next != "0" && paged.count < 20
                #expect(paged == whole, "order \(order)")
                #expect(whole.count == 6)
            }

            // A cursor belongs to its order: another order's cursor is refused, not misread.
            let nearestCursor = try await nearby("maxDistance=5000&limit=2").nextCursor
            let misused = try await api.g2(
                .get,
                "/v1/posts/geolocation?category=\(category)&latitude=\(Self.seoul.latitude)&longitude=\(Self.seoul.longitude)&order_by=createdAt&next=\(nearestCursor)",
                as: alice)
            #expect(misused.status == 400)
            for bad in ["maxDistance=-1", "order_by=likes", "sort_by=up", "next=garbage"] {
                #expect(
                    try await api.g2(
                        .get, "/v1/posts/geolocation?latitude=1&longitude=1&\(bad)", as: alice
                    ).status == 400, "\(bad)")
            }
            #expect(try await api.g2(.get, "/v1/posts/geolocation?longitude=1", as: alice).status == 400)
            #expect(try await api.g2(.get, "/v1/posts/geolocation?latitude=90.5&longitude=1", as: alice).status == 400)
        }
    }

    @Test func nearbyWorksAcrossTheAntimeridianAndAtThePoles() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let category = TestEnvironment.unique("edge")
            func post(_ latitude: Double, _ longitude: Double) async throws -> String {
                try await api.g2(
                    .post, "/v1/posts", as: alice,
                    json: #"{"category":"\#(category)","latitude":\#(latitude),"longitude":\#(longitude)}"#
                ).decode(APIModels.G2Post.self).postId
            }
            func nearby(_ latitude: Double, _ longitude: Double, _ metres: Double) async throws -> [String] {
                try await api.g2(
                    .get,
                    "/v1/posts/geolocation?category=\(category)&latitude=\(latitude)&longitude=\(longitude)&maxDistance=\(metres)",
                    as: alice
                ).decode(APIModels.Page<APIModels.G2Post>.self).data.map(\.postId)
            }
            // 0.001° of longitude at the equator is ~111 m, across ±180°.
            let east = try await post(0, 179.9995)
            let west = try await post(0, -179.9995)
            #expect(Set(try await nearby(0, 180, 100)) == [east, west])
            #expect(Set(try await nearby(0, -179.9995, 120)) == [east, west])
            #expect(try await nearby(0, -179.9995, 100) == [west])
            // Near the north pole, longitudes converge: posts on opposite meridians are ~222 m apart.
            let a = try await post(89.999, 0)
            let b = try await post(89.999, 180)
            #expect(Set(try await nearby(90, 0, 112)) == [a, b])
            #expect(try await nearby(89.999, 0, 200) == [a])
            // The south pole, and the antipode of Seoul at the other end of the sphere.
            let south = try await post(-90, 0)
            #expect(try await nearby(-89.9999, 45, 20) == [south])
            let antipode = try await post(-Self.seoul.latitude, Self.seoul.longitude - 180)
            let all = try await nearby(Self.seoul.latitude, Self.seoul.longitude, 1e9)
            #expect(all.last == antipode, "farthest is last: \(all)")
        }
    }

    @Test func titleSearchFindsHangulAndLatinSubstringsInTheApp() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let category = TestEnvironment.unique("title")
            var ids: [String: String] = [:]
            for title in ["보드게임 모임", "주말 보드 게임", "Board Night", "게"] {
                ids[title] = try await api.g2(
                    .post, "/v1/posts", as: alice, json: #"{"category":"\#(category)","title":"\#(title)"}"#
                ).decode(APIModels.G2Post.self).postId
            }
            func search(_ text: String, _ extra: String = "") async throws -> [String] {
                let encoded = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                return try await api.g2(
                    .get, "/v1/posts/search?category=\(category)&title=\(encoded)\(extra)", as: alice
                )
                .decode(APIModels.Page<APIModels.G2Post>.self).data.map(\.postId)
            }
            #expect(try await search("보드") == [ids["주말 보드 게임"]!, ids["보드게임 모임"]!])
            #expect(try await search("게임") == [ids["주말 보드 게임"]!, ids["보드게임 모임"]!])
            #expect(try await search("임 모") == [ids["보드게임 모임"]!])
            #expect(try await search("bOARD") == [ids["Board Night"]!])
            #expect(try await search("게").count == 3, "one character")
            #expect(try await search("없는말") == [])
            let first = try await api.g2(
                .get, "/v1/posts/search?category=\(category)&title=%EA%B2%8C&limit=2", as: alice)
            let page = try first.decode(APIModels.Page<APIModels.G2Post>.self)
            #expect(page.data.count == 2 && page.nextCursor != "0")
            #expect(try await search("게", "&limit=2&next=\(page.nextCursor)").count == 1)
            #expect(try await api.g2(.get, "/v1/posts/search?title=", as: alice).status == 400)
        }
    }

    @Test func commentsAreListedOnTheirOwnAndTheFeedFollowsTheAuthors() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let bob = try await api.user()
            let category = TestEnvironment.unique("feed")
            let post = try await api.g2(
                .post, "/v1/posts", as: bob, json: #"{"category":"\#(category)","title":"t","content":"c"}"#
            ).decode(APIModels.G2Post.self)
            let comment = try await api.g2(
                .post, "/v1/posts/\(post.postId)/comments", as: alice, json: ##"{"content":"#202511240100, 3"}"##)
            #expect(Set(try comment.json.keys) == ["comment_id", "content", "createdAt", "creator"])
            _ = try await api.g2(.post, "/v1/posts/\(post.postId)/comments", as: bob, json: #"{"content":"second"}"#)
            let list = try await api.g2(.get, "/v1/posts/\(post.postId)/comments", as: alice)
            #expect(try list.json.keys == ["data"])
            let comments = try #require(try list.json["data"] as? [[String: Any]])
            #expect(comments.map { $0["content"] as? String } == ["second", "#202511240100, 3"])
            #expect(try await api.g2(.get, "/v1/posts/\(ObjectID.generate())/comments", as: alice).status == 410)
            let again = try await api.g2(.get, "/v1/posts/\(post.postId)", as: alice).decode(APIModels.G2Post.self)
            #expect(again.commentCount == 2 && again.comments.count == 2)

            let followed = try await api.publish(
                UserFollowed(edge: FollowEdge(followerId: alice.userId, followeeId: bob.userId, at: Date())),
                key: alice.userId)
            try await api.waitProcessed(followed)
            let feed = try await api.g2(.get, "/v1/posts/feed?category=\(category)", as: alice)
            #expect(try feed.decode(APIModels.Page<APIModels.G2Post>.self).data.map(\.postId) == [post.postId])
        }
    }
}
