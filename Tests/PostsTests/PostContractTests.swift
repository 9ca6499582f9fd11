import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

@testable import PostsService

/// API conventions §2.3 / §3.1: posts' exact keys and status codes.
@Suite("Posts contract")
struct PostContractTests {
    @Test func createReturnsThePostWithExactKeysAndOmitsUnsetOptionals() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let file = api.file(for: alice)
            let created = try await api.created(
                as: alice,
                #"{"title":"책","content":"좋은 책 #독서 #Book","product_id":"snapBook","files":["\#(file)"],"price":15000}"#)
            let post = try created.json
            #expect(
                post.keys == [
                    "post_id", "product_id", "title", "content", "price", "createdAt", "creator", "files",
                    "likes", "likes2", "buyers", "hashTags", "comments",
                ])
            let typed = try created.decode(APIModels.Post.self)
            #expect(ObjectID.isValid(typed.postId))
            #expect(typed.price == 15000)
            #expect(typed.files == [file])
            #expect(typed.hashTags == ["독서", "Book"])
            #expect(typed.comments.isEmpty)
            let creator = try #require(post["creator"] as? [String: Any])
            #expect(Set(creator.keys) == ["user_id", "nick"], "profileImage omitted when unset")
            #expect(typed.creator.nick == alice.nick)
            // The wire format of the date, not just the instant.
            let createdAt = try #require(post.string("createdAt"))
            #expect(
                createdAt.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression)
                    != nil)

            let minimal = try await api.createPost(as: alice, #"{"product_id":"snapBook","content5":"x"}"#)
            #expect(
                minimal.keys == [
                    "post_id", "product_id", "content5", "createdAt", "creator", "files", "likes", "likes2",
                    "buyers", "hashTags", "comments",
                ])

            let one = try await api.send(.get, "/v1/posts/\(typed.postId)", as: alice)
            #expect(one.status == 200)
            #expect(try one.json.keys == post.keys)
        }
    }

    @Test func filesMustBePathsOurMediaServiceIssuedToTheAuthor() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let bob = try await api.user()
            for files in [
                #"["uploads/posts/../../etc/passwd"]"#, #"["uploads/posts/\#(String(repeating: "a", count: 40)).jpg"]"#,
                #"["\#(api.file(for: bob))"]"#,
                "[" + Array(repeating: "\"\(api.file(for: alice))\"", count: 6).joined(separator: ",") + "]",
            ] {
                let reply = try await api.send(
                    .post, "/v1/posts", as: alice, json: #"{"product_id":"p","files":\#(files)}"#)
                #expect(reply.status == 400, "\(files): \(reply.text)")
                #expect(try reply.json.keys == ["message"])
            }
        }
    }

    @Test func badInputIsA400NeverA500() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            for body in [
                "", "{", "[]", #"{"price":"free"}"#, #"{"price":-1}"#,
                #"{"files":"uploads/posts/x.jpg"}"#, #"{"content":"\#(String(repeating: "a", count: 10_001))"}"#,
            ] {
                let reply = try await api.send(.post, "/v1/posts", as: alice, json: body)
                #expect(reply.status == 400, "\(body.prefix(40)): \(reply.status) \(reply.text)")
            }
            #expect(try await api.send(.get, "/v1/posts?limit=abc", as: alice).status == 400)
            #expect(try await api.send(.get, "/v1/posts?limit=0", as: alice).status == 400)
            #expect(try await api.send(.get, "/v1/posts?next=garbage", as: alice).status == 400)
            #expect(try await api.send(.get, "/v1/posts/hashtags?hashTag=", as: alice).status == 400)
        }
    }

    @Test func tokensAndKeys() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            #expect(try await api.send(.get, "/v1/posts", as: nil).status == 401)
            #expect(try await api.send(.get, "/v1/posts", as: nil, token: "not-a-jwt").status == 401)
            #expect(
                try await api.send(
                    .get, "/v1/posts", as: nil, token: try await api.token(for: alice.userId, expiresIn: -5)
                ).status == 419)
            #expect(try await api.send(.get, "/v1/posts", as: alice, apiKey: .some(nil)).status == 420)
            #expect(try await api.send(.get, "/v1/posts", as: alice, apiKey: "wrong").status == 420)
            #expect(try await api.send(.get, "/v1/posts", as: nil, token: "Bearer \(alice.token)").status == 200)
            #expect(try await api.send(.get, "/v1/postz", as: alice).status == 444)
        }
    }

    @Test func onlyTheOwnerEditsOrDeletesAndGonePostsAre410() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let bob = try await api.user()
            let post = try await api.created(
                as: alice,
                #"{"title":"t","content":"old #a","product_id":"p","price":100,"files":["\#(api.file(for: alice))"]}"#
            ).decode(APIModels.Post.self)
            let id = post.postId
            #expect(try await api.send(.put, "/v1/posts/\(id)", as: bob, json: #"{"title":"mine"}"#).status == 445)
            #expect(try await api.send(.delete, "/v1/posts/\(id)", as: bob).status == 445)

            // Absent keys keep their value (files, price); present ones replace; hashtags follow content.
            let edited = try await api.send(
                .put, "/v1/posts/\(id)", as: alice, json: #"{"title":"new","content":"new #B"}"#)
            #expect(edited.status == 200, "\(edited.text)")
            let after = try edited.decode(APIModels.Post.self)
            #expect(after.title == "new")
            #expect(after.hashTags == ["B"])
            #expect(after.price == 100)
            #expect(after.files.count == 1)
            #expect(after.createdAt == post.createdAt)

            let deleted = try await api.send(.delete, "/v1/posts/\(id)", as: alice)
            #expect(deleted.status == 200)
            #expect(try await api.send(.get, "/v1/posts/\(id)", as: alice).status == 410)
            #expect(try await api.send(.put, "/v1/posts/\(id)", as: alice, json: #"{"title":"x"}"#).status == 410)
            #expect(try await api.send(.delete, "/v1/posts/\(id)", as: alice).status == 410)
            #expect(
                try await api.send(.post, "/v1/posts/\(id)/like", as: alice, json: #"{"like_status":true}"#).status
                    == 410)
            #expect(
                try await api.send(.post, "/v1/posts/\(id)/comments", as: alice, json: #"{"content":"hi"}"#).status
                    == 410)
            #expect(try await api.send(.get, "/v1/posts/ffffffffffffffffffffffff", as: alice).status == 410)
        }
    }

    @Test func likesAreIdempotentDesiredStatesAndListMine() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let bob = try await api.user()
            let product = TestEnvironment.unique("likes")
            let first = try await api.createPost(as: alice, #"{"product_id":"\#(product)"}"#).string("post_id")!
            let second = try await api.createPost(as: alice, #"{"product_id":"\#(product)"}"#).string("post_id")!

            for _ in 0..<2 {
                let liked = try await api.send(
                    .post, "/v1/posts/\(first)/like", as: bob, json: #"{"like_status":true}"#)
                #expect(liked.status == 200)
                #expect(try liked.json.keys == ["like_status"])
                #expect(try liked.json.bool("like_status") == true)
            }
            #expect(
                try await api.send(.post, "/v1/posts/\(second)/like", as: bob, json: #"{"like_status":true}"#).status
                    == 200)
            #expect(
                try await api.send(.post, "/v1/posts/\(first)/like-2", as: bob, json: #"{"like_status":true}"#).status
                    == 200)
            #expect(try await api.send(.post, "/v1/posts/\(first)/like", as: bob, json: #"{}"#).status == 400)

            let post = try await api.send(.get, "/v1/posts/\(first)", as: alice).decode(APIModels.Post.self)
            #expect(post.likes == [bob.userId])
            #expect(post.likes2 == [bob.userId])

            let mine = try await api.send(.get, "/v1/posts/likes/me", as: bob)
            #expect(mine.postIds == [second, first], "most recently liked first")
            #expect(mine.nextCursor == "0")
            #expect(try await api.send(.get, "/v1/posts/likes-2/me", as: bob).postIds == [first])

            for _ in 0..<2 {
                let unliked = try await api.send(
                    .post, "/v1/posts/\(first)/like", as: bob, json: #"{"like_status":false}"#)
                #expect(try unliked.json.bool("like_status") == false)
            }
            #expect(try await api.send(.get, "/v1/posts/likes/me", as: bob).postIds == [second])
            let likeEvents = try await api.sql(
                "SELECT count(*)::int FROM posts.outbox WHERE partition_key = \(first) AND event_type IN ('post-liked', 'post-unliked')",
                Int.self)
            #expect(likeEvents == [3], "like, like-2, unlike: repeats publish nothing")
        }
    }

    @Test func commentsNewestFirstWithOwnerChecks() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let bob = try await api.user()
            let id = try await api.createPost(as: alice, #"{"product_id":"p"}"#).string("post_id")!
            let c1 = try await api.send(.post, "/v1/posts/\(id)/comments", as: bob, json: #"{"content":"첫 댓글"}"#)
            #expect(c1.status == 200)
            #expect(try c1.json.keys == ["comment_id", "content", "createdAt", "creator"])
            let first = try c1.json.string("comment_id")!
            let second = try await api.send(
                .post, "/v1/posts/\(id)/comments", as: alice, json: #"{"content":"second"}"#
            ).json.string("comment_id")!
            #expect(
                try await api.send(.post, "/v1/posts/\(id)/comments", as: bob, json: #"{"content":"  "}"#).status == 400
            )

            let comments = try await api.send(.get, "/v1/posts/\(id)", as: alice).decode(APIModels.Post.self).comments
            #expect(comments.map(\.commentId) == [second, first])
            #expect(comments.last?.creator.nick == bob.nick)

            #expect(
                try await api.send(.put, "/v1/posts/\(id)/comments/\(first)", as: alice, json: #"{"content":"x"}"#)
                    .status == 445)
            #expect(try await api.send(.delete, "/v1/posts/\(id)/comments/\(first)", as: alice).status == 445)
            #expect(
                try await api.send(.put, "/v1/posts/\(id)/comments/\(first)", as: bob, json: #"{"content":""}"#).status
                    == 400)
            let edited = try await api.send(
                .put, "/v1/posts/\(id)/comments/\(first)", as: bob, json: #"{"content":"고친 댓글"}"#)
            #expect(edited.status == 200)
            #expect(try edited.json.string("content") == "고친 댓글")
            #expect(try await api.send(.delete, "/v1/posts/\(id)/comments/\(first)", as: bob).status == 200)
            #expect(try await api.send(.delete, "/v1/posts/\(id)/comments/\(first)", as: bob).status == 410)
            #expect(
                try await api.send(.put, "/v1/posts/\(id)/comments/\(first)", as: bob, json: #"{"content":"x"}"#).status
                    == 410)
        }
    }

    @Test func hashtagSearchIsCaseInsensitiveAndHangulAware() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let tag = TestEnvironment.unique("Tag")
            let hangul = "키보드\(TestEnvironment.unique(""))"
            let a = try await api.created(
                as: alice, ##"{"product_id":"hashtag_contract","content":"#\##(tag) 좋아요 #\##(hangul)\n끝"}"##
            ).decode(APIModels.Post.self)
            #expect(a.hashTags == [tag, hangul], "author's spelling kept, without #")
            let b = try await api.createPost(as: alice, ##"{"product_id":"other","content":"#\##(tag.uppercased())"}"##)
            let lower = try await api.send(.get, "/v1/posts/hashtags?hashTag=\(tag.lowercased())", as: alice)
            #expect(lower.postIds == [b.string("post_id")!, a.postId])
            let filtered = try await api.send(
                .get, "/v1/posts/hashtags?hashTag=\(tag)&product_id=hashtag_contract", as: alice)
            #expect(filtered.postIds == [a.postId])
            let encoded = hangul.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(
                try await api.send(.get, "/v1/posts/hashtags?hashTag=\(encoded)", as: alice).postIds == [a.postId])
        }
    }

    @Test func hashtagExtractionRules() {
        #expect(Hashtags.extract(from: "#Top #top #탑_1 a#b #! #") == ["Top", "탑_1", "b", "!"])
        // A tag runs to the next whitespace or `#`: DevCommunity's roles keep their `;count` and `/`.
        #expect(Hashtags.extract(from: "#iOS;2 #백엔드;1 #UI/UX;1 ") == ["iOS;2", "백엔드;1", "UI/UX;1"])
        #expect(Hashtags.extract(from: "#a#b ##c #독서,\n#next\t#탭") == ["a", "b", "c", "독서,", "next", "탭"])
        #expect(Hashtags.extract(from: "no tags") == [])
        #expect(Hashtags.key("#Top") == "top")
    }
}

extension PostsClient {
    /// Creates a post like `createPost`, but hands back the answer itself: to read it typed and, where the key
    /// set is the point, loosely.
    fileprivate func created(as user: TestUser, _ json: String) async throws -> Reply {
        let reply = try await send(.post, "/v1/posts", as: user, json: json)
        #expect(reply.status == 200, "create: \(reply.text)")
        return reply
    }
}
