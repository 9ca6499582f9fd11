import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// Two people find each other and interact, through nginx and the real auth, posts and social processes:
/// sign up → search → follow each other → post → like → comment → profiles show followers and counts →
/// rankings show the post → edit the profile (nick) → the new nick reaches the post's creator.
@Suite("Social journey through the gateway")
struct SocialJourneyThroughGatewayTests {
    struct Person {
        let id: String
        let nick: String
        let headers: [String: String]
    }

    func signUp(_ gateway: GatewayClient) async throws -> Person {
        let nick = TestEnvironment.unique("sj")
        let joined = try await gateway.send(
            "POST", "/v1/users/join",
            json: #"{"email":"\#(nick)@example.com","password":"password123","nick":"\#(nick)"}"#)
        #expect(joined.status == 200, "\(joined.text)")
        let login = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"\#(nick)@example.com","password":"password123"}"#)
        return Person(
            id: try login.json.string("user_id") ?? "", nick: nick,
            headers: ["Authorization": try login.json.string("accessToken") ?? ""])
    }

    @Test func followPostLikeCommentProfilesRankingsRename() async throws {
        let gateway = try GatewayClient()
        let alice = try await signUp(gateway)
        let bob = try await signUp(gateway)

        // Search finds each of them once the social service has projected their registrations (two users'
        // events travel on different partitions, so wait for both).
        for person in [alice, bob] {
            try await eventually("\(person.nick) searchable") {
                let found = try await gateway.send(
                    "GET", "/v1/users/search?nick=\(person.nick)", headers: alice.headers)
                return (try? found.decode(APIModels.UserList.self))?.data.first?.userId == person.id
            }
        }
        #expect(try await gateway.send("POST", "/v1/follow/\(bob.id)", headers: alice.headers).status == 200)
        #expect(try await gateway.send("POST", "/v1/follow/\(alice.id)", headers: bob.headers).status == 200)

        let product = TestEnvironment.unique("uriBoard")
        let created = try await gateway.send(
            "POST", "/v1/posts", json: #"{"product_id":"\#(product)","content":"첫 글 #소통"}"#, headers: bob.headers)
        let postId = try #require(try created.json.string("post_id"))
        #expect(
            try await gateway.send(
                "POST", "/v1/posts/\(postId)/like", json: #"{"like_status":true}"#, headers: alice.headers
            ).status == 200)
        #expect(
            try await gateway.send(
                "POST", "/v1/posts/\(postId)/comments", json: #"{"content":"반가워요"}"#, headers: alice.headers
            ).status == 200)

        try await eventually("profiles and rankings show it") {
            let bobs = try await gateway.send("GET", "/v1/users/\(bob.id)/profile", headers: alice.headers)
            let alices = try await gateway.send("GET", "/v1/users/me/profile", headers: alice.headers)
            let ranking = try await gateway.send(
                "GET", "/v1/rankings/posts?product_id=\(product)&window=1h", headers: alice.headers)
            let bobsProfile = try? bobs.decode(APIModels.Profile.self)
            let alicesProfile = try? alices.decode(APIModels.Profile.self)
            return bobsProfile?.posts == [postId] && bobsProfile?.followerCount == 1
                && alicesProfile?.commentCount == 1 && alicesProfile?.likeCount == 1
                && (try? ranking.decode(APIModels.PostRanking.self))?.data.first?.postId == postId
        }
        try await eventually("following feed") {
            let page = try await gateway.send(
                "GET", "/v1/posts/feed/following?product_id=\(product)", headers: alice.headers)
            return (try? page.decode(APIModels.PostPage.self))?.data.first?.postId == postId
        }

        // Bob renames himself (multipart, like the apps); his post's creator follows.
        let renamed = TestEnvironment.unique("renamed")
        let boundary = "sns-\(UUID().uuidString)"
        let body =
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"nick\"\r\n\r\n\(renamed)\r\n--\(boundary)--\r\n"
        let edited = try await gateway.send(
            "PUT", "/v1/users/me/profile", body: Data(body.utf8),
            contentType: "multipart/form-data; boundary=\(boundary)", headers: bob.headers)
        #expect(edited.status == 200, "\(edited.text)")
        #expect(try edited.json.string("nick") == renamed)
        try await eventually("the post's creator shows the new nick") {
            let post = try await gateway.send("GET", "/v1/posts/\(postId)", headers: alice.headers)
            return (try? post.decode(APIModels.Post.self))?.creator.nick == renamed
        }
        let taken = try await gateway.send(
            "PUT", "/v1/users/me/profile", body: Data(body.replacingOccurrences(of: renamed, with: alice.nick).utf8),
            contentType: "multipart/form-data; boundary=\(boundary)", headers: bob.headers)
        #expect(taken.status == 409, "\(taken.text)")
    }
}
