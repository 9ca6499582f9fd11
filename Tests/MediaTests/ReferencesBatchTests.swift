import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import MediaService

/// Media applies runs of post snapshots with one statement per run (decision 0015), and single snapshots with the same
/// statement: the references that keep files alive, applied in one batch and one by one, must both be what the rules
/// say — repeated and malformed paths, deletions and authors who withdrew (whose later snapshots reference nothing)
/// included.
@Suite("Media's references in batches")
struct ReferencesBatchTests {
    static let paths = (0..<5).map { "uploads/posts/" + String(repeating: "\($0)a", count: 20) + ".jpg" }

    /// The references the rules say the stream leaves (the projection's doc comment), worked out without SQL: a
    /// post references exactly the media paths of its newest snapshot, nothing once deleted, nothing when its author
    /// withdrew (before or after the snapshot); a `post-created` without media paths is left alone (in a real
    /// stream it is the post's first event, when there is nothing to clear; this stream also has it later).
    static func expectedRows(_ stream: [IncomingEvent]) throws -> [String] {
        var withdrawn = Set<String>()
        var posts: [String: (owner: String, paths: Set<String>)] = [:]
        for event in stream {
            switch event.eventType {
            case .postCreated, .postUpdated:
                let post =
                    event.eventType == .postCreated
                    ? try event.payload(as: PostCreated.self).post : try event.payload(as: PostUpdated.self).post
                let paths = post.files.compactMap { MediaPath($0)?.string }
                if event.eventType == .postCreated, paths.isEmpty { continue }
                posts[post.postId] =
                    withdrawn.contains(post.userId)
                    ? nil : (post.userId, Set(post.files.compactMap { MediaPath($0)?.string }))
            case .postDeleted:
                posts[try event.payload(as: PostDeleted.self).postId] = nil
            case .userWithdrawn:
                let user = try event.payload(as: UserWithdrawn.self).userId
                withdrawn.insert(user)
                posts = posts.filter { $0.value.owner != user }
            default:
                Issue.record("unexpected event \(event.type)")
            }
        }
        let references = posts.flatMap { post in post.value.paths.map { "post|\(post.key)|\($0)|\(post.value.owner)" } }
        return (references + withdrawn.map { "withdrawn|\($0)" }).sorted()
    }

    /// A holder's first snapshot with no media path changes nothing; one with a media path, and every later
    /// snapshot (which may clear earlier references), does.
    @Test func firstSnapshotsWithoutMediaPathsChangeNothing() async throws {
        try await TestPlatform.with { platform in try Self.checkFirstSnapshots(platform) }
    }

    static func checkFirstSnapshots(_ platform: TestPlatform) throws {
        let projection = MediaReferencesProjection(
            catalog: MediaCatalog(schema: try SQLIdentifier("media_unused"), client: platform.postgres))
        func post(_ files: [String]) -> PostSnapshot {
            PostSnapshot(
                postId: "p", userId: "u", productId: nil, title: nil, price: nil, files: files, hashTags: [],
                createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
        }
        func changes<P: EventPayload>(_ payload: P) throws -> Bool {
            projection.changesAnything(try PostEventStream.event(payload, key: "p", offset: 0))
        }
        #expect(try !changes(PostCreated(post: post([]))))
        #expect(try !changes(PostCreated(post: post(["not/a/media/path.jpg"]))))
        #expect(try changes(PostCreated(post: post([Self.paths[0]]))))
        #expect(try changes(PostUpdated(post: post([]))))
        func user(_ image: String?) -> UserRegistered {
            UserRegistered(
                userId: "u", email: "u@example.com", nick: "n", phoneNum: nil, birthDay: nil, profileImage: image,
                registeredAt: Date(timeIntervalSince1970: 0))
        }
        #expect(try !changes(user(nil)))
        #expect(try changes(user(Self.paths[1])))
        func message(_ files: [String]) -> ChatMessageSent {
            ChatMessageSent(
                chatId: "c", roomId: "r", content: "hi", files: files,
                sender: .init(userId: "u", nick: "n", profileImage: nil), participants: ["u", "v"],
                createdAt: Date(timeIntervalSince1970: 0))
        }
        #expect(try !changes(message([])))
        #expect(try changes(message([Self.paths[2]])))
        // Later events of a holder may clear references: always applied.
        #expect(
            try changes(
                PostDeleted(
                    postId: "p", userId: "u", productId: nil, files: [], deletedAt: Date(timeIntervalSince1970: 0))))
        #expect(
            try changes(
                UserUpdated(
                    userId: "u", nick: "n", phoneNum: nil, birthDay: nil, profileImage: nil,
                    updatedAt: Date(timeIntervalSince1970: 0))))
    }

    @Test func batchedAndOneByOneEndInTheReferencesTheRulesSay() async throws {
        try await TestPlatform.with { platform in
            for seed in 1...5 as ClosedRange<UInt64> {
                let stream = try PostEventStream.events(seed: seed, count: 80, paths: Self.paths, withdrawals: true)
                let rows = try await PostEventStream.applyEveryWay(
                    stream,
                    platform: platform, migrations: { MediaMigrations.all(schema: $0) },
                    handler: {
                        MediaReferencesProjection(catalog: MediaCatalog(schema: $0, client: platform.postgres))
                    },
                    rows: { schema in
                        """
                        SELECT concat_ws('|', holder_kind, holder_id, path, owner_id) FROM \(table: schema, "references")
                        UNION ALL
                        SELECT concat_ws('|', 'withdrawn', user_id) FROM \(table: schema, "withdrawn_users")
                        ORDER BY 1
                        """
                    })
                let expected = try Self.expectedRows(stream)
                #expect(expected.contains { $0.hasPrefix("post|") } && expected.contains { $0.hasPrefix("withdrawn|") })
                #expect(rows.single.sorted() == expected, "seed \(seed): one by one")
                #expect(rows.batched.sorted() == expected, "seed \(seed): batched")
                #expect(rows.recorded.sorted() == expected, "seed \(seed): one statement with the record")
            }
        }
    }
}
