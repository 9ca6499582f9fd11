import Foundation
import MediaService
import SNSPlatform
import SNSTestSupport
import Testing

@Suite("POST /v1/posts/files: keys, codes, limits")
struct UploadTests {
    @Test func uploadReturnsFilesInUploadOrder() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let reply = try await media.client.upload(
                [
                    .file(ImageFixtures.png, filename: "first", contentType: "image/jpg"),
                    .file(ImageFixtures.jpeg, filename: "second.png", contentType: "image/png"),
                    .file(ImageFixtures.gif, filename: "third"),
                    .file(ImageFixtures.webp, filename: "fourth", contentType: "application/octet-stream"),
                ], token: user.token)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json.keys == ["files"])
            let files = try reply.files
            #expect(files.count == 4)
            // Types come from the bytes: neither the filename nor the declared type counts.
            #expect(files.map { $0.split(separator: ".").last.map(String.init) } == ["png", "jpg", "gif", "webp"])
            for file in files {
                #expect(file.hasPrefix("uploads/posts/"))
                let path = try #require(MediaPath(file))
                #expect(media.signer.isIssued(path, to: user.userId), "paths are signed for their owner")
                #expect(FileManager.default.fileExists(atPath: try media.location(of: file)))
            }
            #expect(Set(files).count == 4)
            #expect(try media.temporaryFiles().isEmpty, "temp files are moved into place")
        }
    }

    @Test func storedFilesAreRecordedWithTheirEvents() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let reply = try await media.client.upload([.file(ImageFixtures.png)], token: user.token)
            let file = try #require(try reply.files.first)
            let record = try #require(try await media.catalog.file(path: file, logger: TestEnvironment.logger))
            #expect(record.ownerId == user.userId)
            #expect(record.contentType == "image/png")
            #expect(record.size == ImageFixtures.png.count)
            #expect(record.etag.count == 64)
            // The media-stored event is in the outbox of the same transaction.
            let rows = try await media.postgres.query(
                """
                SELECT event_type, partition_key, payload->'payload'->>'path' FROM \(table: try SQLIdentifier(media.configuration.schema), "outbox")
                """, logger: TestEnvironment.logger)
            var events: [(String, String, String)] = []
            for try await row in rows.decode((String, String, String).self) { events.append(row) }
            #expect(events.count == 1)
            #expect(events.first?.0 == "media-stored")
            #expect(events.first?.1 == user.userId)
            #expect(events.first?.2 == file)
        }
    }

    /// Once media has the `user-withdrawn` event, the user's still-valid token opens nothing here.
    @Test func aWithdrawnUsersTokenIsRefused() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let files = try await media.client.upload([.file(ImageFixtures.png)], token: user.token).files
            try await media.apply(UserWithdrawn(userId: user.userId, withdrawnAt: Date()), aggregateId: user.userId)
            #expect(try await media.client.upload([.file(ImageFixtures.png)], token: user.token).status == 401)
            #expect(try await media.client.download(files[0], token: user.token).status == 401)
        }
    }

    @Test func noFilesIs400() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let empty = try await media.client.upload([], token: user.token)
            #expect(empty.status == 400)
            #expect(try empty.json.keys == ["message"])
            // Only other fields: still no file.
            let fieldsOnly = try await media.client.upload([.text("title", "hello")], token: user.token)
            #expect(fieldsOnly.status == 400)
            // A file under another field name is not a file of `files`.
            let wrongField = try await media.client.upload([.file(ImageFixtures.png, name: "file")], token: user.token)
            #expect(wrongField.status == 400)
            #expect(try media.temporaryFiles().isEmpty)
        }
    }

    @Test func otherPartsAreIgnored() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let reply = try await media.client.upload(
                [.text("product_id", "snapBook"), .file(ImageFixtures.gif), .text("content", "#hello")],
                token: user.token)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.files.count == 1)
            // ... but bounded: a huge stray part is refused.
            let huge = try await media.client.upload(
                [.file(ImageFixtures.gif), .text("content", String(repeating: "x", count: 100_000))], token: user.token)
            #expect(huge.status == 400)
        }
    }

    @Test func aSixthFileIs400AndNothingIsStored() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let six = (0..<6).map { _ in FormPart.file(ImageFixtures.png) }
            let reply = try await media.client.upload(six, token: user.token)
            #expect(reply.status == 400)
            #expect(try reply.json.keys == ["message"])
            let five = try await media.client.upload(Array(six.prefix(5)), token: user.token)
            #expect(five.status == 200)
            #expect(try five.files.count == 5)
            #expect(try media.temporaryFiles().isEmpty)
            // Only the five of the second request were stored.
            let stored = try FileManager.default.contentsOfDirectory(atPath: media.root.directory(of: .posts))
            #expect(stored.count == 5)
        }
    }

    @Test func maxFilesIsConfigurable() async throws {
        try await withMediaService(maxFiles: 2) { media in
            let user = try await testUser()
            #expect(
                try await media.client.upload([.file(ImageFixtures.png), .file(ImageFixtures.gif)], token: user.token)
                    .status == 200)
            #expect(
                try await media.client.upload(
                    [.file(ImageFixtures.png), .file(ImageFixtures.gif), .file(ImageFixtures.webp)],
                    token: user.token
                ).status == 400)
        }
    }

    @Test func aFileOverTheLimitIs400() async throws {
        try await withMediaService(maxFileBytes: 64 * 1024) { media in
            let user = try await testUser()
            let atLimit = try await media.client.upload(
                [.file(ImageFixtures.largeJPEG(size: 64 * 1024))], token: user.token)
            #expect(atLimit.status == 200, "\(atLimit.text)")
            let over = try await media.client.upload(
                [.file(ImageFixtures.png), .file(ImageFixtures.largeJPEG(size: 64 * 1024 + 1))],
                token: user.token)
            #expect(over.status == 400)
            #expect(try over.json.keys == ["message"])
            #expect(try media.temporaryFiles().isEmpty, "the first file's temp file is removed too")
        }
    }

    @Test func nonImageBytesAre400WhateverTheDeclaredType() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            for bytes in [
                ImageFixtures.notAnImage, Array("GIF8".utf8), [0xFF, 0xD8], Array(repeating: 0x00, count: 4096),
            ] {
                let reply = try await media.client.upload(
                    [.file(bytes, filename: "photo.jpg", contentType: "image/jpeg")], token: user.token)
                #expect(reply.status == 400, "\(bytes.prefix(8))")
                #expect(try reply.json.keys == ["message"])
            }
            // An empty file part, too.
            #expect(try await media.client.upload([.file([])], token: user.token).status == 400)
            #expect(try media.temporaryFiles().isEmpty)
        }
    }

    @Test func notMultipartIs400() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let json = try await media.client.send(
                .post, "/v1/posts/files", token: user.token,
                headers: ["Content-Type": "application/json"], body: .init(string: "{}"))
            #expect(json.status == 400)
            let noBoundary = try await media.client.upload(
                [.file(ImageFixtures.png)], token: user.token, contentType: "multipart/form-data")
            #expect(noBoundary.status == 400)
            // A body cut off in the middle of a file.
            var truncated = Multipart.body([.file(ImageFixtures.png)])
            truncated.moveWriterIndex(to: truncated.writerIndex - Multipart.end.count - 10)
            let cut = try await media.client.send(
                .post, "/v1/posts/files", token: user.token,
                headers: ["Content-Type": Multipart.contentType], body: truncated)
            #expect(cut.status == 400)
            #expect(try media.temporaryFiles().isEmpty)
        }
    }

    /// When the transaction that records the files fails, the files already moved into place are removed.
    @Test func aFailedTransactionLeavesNoFiles() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let schema = try SQLIdentifier(media.configuration.schema)
            try await media.postgres.query(
                "ALTER TABLE \(table: schema, "files") ADD CONSTRAINT refuse_all CHECK (false) NOT VALID",
                logger: TestEnvironment.logger)
            let reply = try await media.client.upload(
                [.file(ImageFixtures.png), .file(ImageFixtures.jpeg)], token: user.token)
            #expect(reply.status == 500)
            #expect(try reply.json.keys == ["message"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: media.root.directory(of: .posts)).isEmpty)
            #expect(try media.temporaryFiles().isEmpty)
        }
    }

    @Test func tokenAndKeyCodes() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let parts = [FormPart.file(ImageFixtures.png)]
            // 420 first: a wrong or missing SesacKey, whatever the token.
            #expect(try await media.client.upload(parts, token: user.token, apiKey: .some(nil)).status == 420)
            #expect(try await media.client.upload(parts, token: nil, apiKey: "wrong").status == 420)
            // 401: missing or unverifiable token.
            #expect(try await media.client.upload(parts, token: nil).status == 401)
            #expect(try await media.client.upload(parts, token: "garbage").status == 401)
            // 419: expired.
            let expired = try await signAccessToken(userId: user.userId, expiresIn: -5)
            let reply = try await media.client.upload(parts, token: expired)
            #expect(reply.status == 419)
            #expect(try reply.json.keys == ["message"])
            // `Bearer ` is accepted too.
            #expect(try await media.client.upload(parts, token: "Bearer \(user.token)").status == 200)
            // Unknown routes: 444.
            #expect(try await media.client.send(.post, "/v1/posts/file", token: user.token).status == 444)
        }
    }
}
