import Foundation
import MediaService
import SNSPlatform
import SNSTestSupport
import Testing

/// References come from post (and profile) events applied to the consumer's handler, exactly as the
/// idempotent consumer would in its transaction; passes are run directly, never waited for.
@Suite("Garbage collection of unreferenced files")
struct GarbageCollectionTests {
    func snapshot(postId: String, userId: String, files: [String]) -> PostSnapshot {
        PostSnapshot(
            postId: postId, userId: userId, productId: "snapBook", title: "t", price: nil, files: files,
            hashTags: [], createdAt: Date(), updatedAt: Date())
    }

    func upload(_ media: MediaTestContext, token: String, count: Int = 1) async throws -> [String] {
        let reply = try await media.client.upload((0..<count).map { _ in .file(ImageFixtures.png) }, token: token)
        // `require`, not `expect`: the callers index the answer, and a failed upload must end the test, not crash
        // the whole test process.
        try #require(reply.status == 200, "\(reply.text)")
        let files = try reply.files
        try #require(files.count == count, "\(reply.text)")
        return files
    }

    func exists(_ media: MediaTestContext, _ path: String) throws -> Bool {
        FileManager.default.fileExists(atPath: try media.location(of: path))
    }

    @Test func aReferencedFileSurvivesAndIsCollectedAfterItsPostIsDeleted() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let files = try await upload(media, token: user.token, count: 2)
            let postId = ObjectID.generate()
            try await media.apply(
                PostCreated(post: snapshot(postId: postId, userId: user.userId, files: files)), aggregateId: postId)

            let first = try await media.collect(grace: .zero)
            #expect(first.collected == 0)
            for file in files {
                #expect(try exists(media, file))
                #expect(try await media.client.download(file, token: user.token).status == 200)
            }

            try await media.apply(
                PostDeleted(
                    postId: postId, userId: user.userId, productId: "snapBook", files: files, deletedAt: Date()),
                aggregateId: postId)
            let second = try await media.collect(grace: .zero)
            #expect(second.collected == 2)
            for file in files {
                #expect(try !exists(media, file), "removed from disk")
                #expect(try await media.client.download(file, token: user.token).status == 410)
            }
            // Nothing left to do.
            #expect(try await media.collect(grace: .zero).collected == 0)
        }
    }

    @Test func anUnreferencedFileYoungerThanTheGraceSurvives() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let files = try await upload(media, token: user.token)
            let pass = try await media.collect(grace: .seconds(3600))
            #expect(pass.collected == 0)
            #expect(try exists(media, files[0]))
            #expect(try await media.client.download(files[0], token: user.token).status == 200)
            // Once the grace is over (here: zero), it goes.
            #expect(try await media.collect(grace: .zero).collected == 1)
            #expect(try !exists(media, files[0]))
        }
    }

    @Test func anUpdateReplacesThePostsReferences() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let files = try await upload(media, token: user.token, count: 3)
            let postId = ObjectID.generate()
            try await media.apply(
                PostCreated(post: snapshot(postId: postId, userId: user.userId, files: [files[0], files[1]])),
                aggregateId: postId)
            // The edit drops files[0] and adds files[2].
            try await media.apply(
                PostUpdated(post: snapshot(postId: postId, userId: user.userId, files: [files[1], files[2]])),
                aggregateId: postId)
            #expect(try await media.collect(grace: .zero).collected == 1)
            #expect(try !exists(media, files[0]))
            #expect(try exists(media, files[1]))
            #expect(try exists(media, files[2]))
        }
    }

    @Test func aFileSharedByTwoPostsLivesUntilBothAreGone() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let file = try await upload(media, token: user.token)[0]
            let (a, b) = (ObjectID.generate(), ObjectID.generate())
            try await media.apply(
                PostCreated(post: snapshot(postId: a, userId: user.userId, files: [file])), aggregateId: a)
            try await media.apply(
                PostCreated(post: snapshot(postId: b, userId: user.userId, files: [file])), aggregateId: b)
            try await media.apply(
                PostDeleted(postId: a, userId: user.userId, productId: nil, files: [file], deletedAt: Date()),
                aggregateId: a)
            #expect(try await media.collect(grace: .zero).collected == 0)
            try await media.apply(
                PostDeleted(postId: b, userId: user.userId, productId: nil, files: [file], deletedAt: Date()),
                aggregateId: b)
            #expect(try await media.collect(grace: .zero).collected == 1)
        }
    }

    @Test func withdrawingReleasesTheUsersFilesForGood() async throws {
        try await withMediaService { media in
            let alice = try await testUser()
            let bob = try await testUser()
            let aliceFiles = try await upload(media, token: alice.token)
            let bobFiles = try await upload(media, token: bob.token)
            let (alicePost, bobPost) = (ObjectID.generate(), ObjectID.generate())
            try await media.apply(
                PostCreated(post: snapshot(postId: alicePost, userId: alice.userId, files: aliceFiles)),
                aggregateId: alicePost)
            try await media.apply(
                PostCreated(post: snapshot(postId: bobPost, userId: bob.userId, files: bobFiles)), aggregateId: bobPost)

            try await media.apply(UserWithdrawn(userId: alice.userId, withdrawnAt: Date()), aggregateId: alice.userId)
            // Late events of Alice's (other topics, so they may arrive after) do not bring them back: her post's
            // update, her profile showing the file, a chat message carrying it.
            try await media.apply(
                PostUpdated(post: snapshot(postId: alicePost, userId: alice.userId, files: aliceFiles)),
                aggregateId: alicePost)
            try await media.apply(
                UserUpdated(
                    userId: alice.userId, nick: "a", phoneNum: nil, birthDay: nil, profileImage: aliceFiles[0],
                    updatedAt: Date()), aggregateId: alice.userId)
            let chatId = ObjectID.generate()
            try await media.apply(
                ChatMessageSent(
                    chatId: chatId, roomId: ObjectID.generate(), content: "", files: aliceFiles,
                    sender: .init(userId: alice.userId, nick: "a", profileImage: nil),
                    participants: [alice.userId, bob.userId], createdAt: Date()), aggregateId: chatId)

            #expect(try await media.collect(grace: .zero).collected == 1)
            #expect(try !exists(media, aliceFiles[0]))
            #expect(try exists(media, bobFiles[0]), "other users' files are untouched")
        }
    }

    @Test func filesSentInAChatMessageAreKept() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let files = try await upload(media, token: user.token)
            let chatId = ObjectID.generate()
            try await media.apply(
                ChatMessageSent(
                    chatId: chatId, roomId: ObjectID.generate(), content: "", files: files,
                    sender: .init(userId: user.userId, nick: "n", profileImage: nil), participants: [user.userId],
                    createdAt: Date()), aggregateId: chatId)
            #expect(try await media.collect(grace: .zero).collected == 0)
            #expect(try exists(media, files[0]))
        }
    }

    @Test func profileImagesAreKeptWhileAProfileShowsThem() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let file = try await upload(media, token: user.token)[0]
            try await media.apply(
                UserUpdated(
                    userId: user.userId, nick: "n", phoneNum: nil, birthDay: nil, profileImage: file, updatedAt: Date()),
                aggregateId: user.userId)
            #expect(try await media.collect(grace: .zero).collected == 0)
            try await media.apply(
                UserUpdated(
                    userId: user.userId, nick: "n", phoneNum: nil, birthDay: nil, profileImage: nil, updatedAt: Date()),
                aggregateId: user.userId)
            #expect(try await media.collect(grace: .zero).collected == 1)
        }
    }

    @Test func otherEventsAndForeignPathsAreIgnored() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let file = try await upload(media, token: user.token)[0]
            let postId = ObjectID.generate()
            try await media.apply(
                CommentCreated(
                    commentId: ObjectID.generate(), postId: postId, userId: user.userId, postUserId: user.userId,
                    productId: nil, createdAt: Date()), aggregateId: postId)
            // A post naming garbage and a traversal path alongside a real file.
            try await media.apply(
                PostCreated(
                    post: snapshot(postId: postId, userId: user.userId, files: ["../../etc/passwd", "uploads/x", file])),
                aggregateId: postId)
            #expect(try await media.collect(grace: .zero).collected == 0)
            #expect(try exists(media, file))
        }
    }

    /// Two replicas collecting at once: every file is collected exactly once, none is missed or failed.
    @Test func concurrentPassesShareTheWork() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            var files: [String] = []
            for _ in 0..<4 { files += try await upload(media, token: user.token, count: 5) }
            let a = MediaGarbageCollector(
                catalog: media.catalog, root: media.root, postgres: media.postgres, grace: .zero,
                batchSize: 3, logger: TestEnvironment.logger)
            let b = MediaGarbageCollector(
                catalog: media.catalog, root: media.root, postgres: media.postgres, grace: .zero,
                batchSize: 3, logger: TestEnvironment.logger)
            async let first = a.collect()
            async let second = b.collect()
            let total = try await first.collected + second.collected
            #expect(total == files.count)
            for file in files { #expect(try !exists(media, file)) }
        }
    }

    @Test func staleTemporaryFilesAreSwept() async throws {
        try await withMediaService { media in
            let stale = media.root.temporaryDirectory + "/upload-crashed.part"
            let fresh = media.root.temporaryDirectory + "/upload-running.part"
            _ = FileManager.default.createFile(atPath: stale, contents: Data(count: 10))
            _ = FileManager.default.createFile(atPath: fresh, contents: Data(count: 10))
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: stale)
            let pass = try await media.collect(grace: .seconds(3600))
            #expect(pass.staleTemporaryFiles == 1)
            #expect(!FileManager.default.fileExists(atPath: stale))
            #expect(FileManager.default.fileExists(atPath: fresh))
        }
    }
}
