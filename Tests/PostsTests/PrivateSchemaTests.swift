import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import PostsService

/// The schema is a setting (the pool's `search_path`; migrations qualify names with it): a posts service on a
/// private schema has its own tables, functions and triggers, and its own consumer fills its read models.
@Suite("Posts on a private schema")
struct PrivateSchemaTests {
    @Test func aPrivateSchemaHasItsOwnTablesReadModelsAndReadyPosts() async throws {
        try await withPostsService(schema: TestEnvironment.unique("posts_")) { posts in
            #expect(posts.schema.name != "posts")
            // Its own consumer applies the registration (the stack's posts process does not see this schema).
            let author = try await posts.user()
            let reader = try await posts.user()
            let product = TestEnvironment.unique("private_")
            let created = try await posts.createPost(
                as: author,
                #"{"product_id":"\#(product)","title":"t","content":"c #사설","files":["\#(posts.file(for: author))"]}"#)
            let postId = try #require(try created.string("post_id"))

            let page = try await posts.send(.get, "/v1/posts?product_id=\(product)", as: reader)
            #expect(page.status == 200 && page.postIds == [postId], "\(page.text)")
            // The ready JSON was assembled by the private schema's own functions, from its own read model.
            #expect(try page.page.data.first?.creator.nick == author.nick)
            let liked = try await posts.send(
                .post, "/v1/posts/\(postId)/like", as: reader, json: #"{"like_status":true}"#)
            #expect(liked.status == 200, "\(liked.text)")
            let again = try await posts.send(.get, "/v1/posts/\(postId)", as: reader)
            #expect(try again.decode(APIModels.Post.self).likes == [reader.userId], "\(again.text)")

            let inPrivate = try await posts.sql(
                "SELECT count(*)::int FROM \(table: posts.schema, "posts") WHERE post_id = \(postId)", Int.self)
            let inShared = try await posts.sql(
                "SELECT count(*)::int FROM posts.posts WHERE post_id = \(postId)", Int.self)
            #expect(inPrivate == [1] && inShared == [0])
        }
    }
}
