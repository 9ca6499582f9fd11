import Foundation
import HTTPTypes
import Hummingbird
import MediaService
import NIOCore
import SNSPlatform
import SNSTestSupport
import Testing

/// `POST /internal/v1/profile-images`: the social service's profile edit stores the image here, exactly like a
/// post upload but as a profile image of the token's user.
@Suite("POST /internal/v1/profile-images")
struct ProfileImageTests {
    @Test func storesUnderProfilesWithTheSniffedExtension() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            // The declared type never counts: a PNG sent as JPEG, a GIF as octet-stream, a WebP as PNG.
            let cases: [([UInt8], String, String)] = [
                (ImageFixtures.png, "image/jpeg", "png"), (ImageFixtures.gif, "application/octet-stream", "gif"),
                (ImageFixtures.webp, "image/png", "webp"), (ImageFixtures.jpeg, "image/jpg", "jpg"),
            ]
            for (bytes, declared, fileExtension) in cases {
                let reply = try await media.client.uploadProfileImage(bytes, token: user.token, contentType: declared)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(try reply.json.keys == ["path"])
                let raw = try #require(try reply.json.string("path"))
                let path = try #require(MediaPath(raw))
                #expect(raw.hasPrefix("uploads/profiles/"))
                #expect(path.kind == .profiles)
                #expect(path.fileExtension == fileExtension)
                #expect(media.signer.isIssued(path, to: user.userId), "signed for the token's user")
                #expect(try Array(Data(contentsOf: URL(fileURLWithPath: try media.location(of: raw)))) == bytes)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: media.root.directory(of: .profiles)).count == 4)
            #expect(try FileManager.default.contentsOfDirectory(atPath: media.root.directory(of: .posts)).isEmpty)
            #expect(try media.temporaryFiles().isEmpty)
        }
    }

    @Test func recordsTheFileAndItsMediaStoredEvent() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let reply = try await media.client.uploadProfileImage(ImageFixtures.png, token: user.token)
            let path = try #require(try reply.json.string("path"))
            let record = try #require(try await media.catalog.file(path: path, logger: TestEnvironment.logger))
            #expect(record.ownerId == user.userId)
            #expect(record.contentType == "image/png")
            #expect(record.size == ImageFixtures.png.count)
            let rows = try await media.postgres.query(
                """
                SELECT f.kind, o.event_type, o.partition_key, o.payload->'payload'->>'path'
                FROM \(table: try SQLIdentifier(media.configuration.schema), "files") f
                JOIN \(table: try SQLIdentifier(media.configuration.schema), "outbox") o ON o.payload->'payload'->>'path' = f.path
                """, logger: TestEnvironment.logger)
            var found: [(String, String, String, String)] = []
            for try await row in rows.decode((String, String, String, String).self) { found.append(row) }
            #expect(found.count == 1)
            #expect(found.first?.0 == "profiles")
            #expect(found.first?.1 == "media-stored")
            #expect(found.first?.2 == user.userId)
            #expect(found.first?.3 == path)
        }
    }

    /// Exif (with GPS), XMP, IPTC and comments are stripped like in post uploads; the ICC profile stays.
    @Test func jpegMetadataIsStripped() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let reply = try await media.client.uploadProfileImage(
                ImageFixtures.jpegWithMetadata, token: user.token, contentType: "image/jpeg")
            #expect(reply.status == 200, "\(reply.text)")
            let path = try #require(try reply.json.string("path"))
            #expect(path.hasSuffix(".jpg"))
            let stored = try Array(Data(contentsOf: URL(fileURLWithPath: try media.location(of: path))))
            #expect(stored == ImageFixtures.jpegWithMetadataStripped)
            #expect(!stored.contains(bytes: Array("GPSLatitude".utf8)))
            let record = try #require(try await media.catalog.file(path: path, logger: TestEnvironment.logger))
            #expect(record.size == ImageFixtures.jpegWithMetadataStripped.count)
            #expect(try media.temporaryFiles().isEmpty, "the unstripped original is gone too")
        }
    }

    @Test func nonImagesAndEmptyBodiesAre400() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            // Not images (whatever they claim), too short to be one, a broken JPEG, a multipart form, nothing, and a
            // video or a voice memo, which a profile image is not (decision 0046).
            let broken = Array(ImageFixtures.jpeg.prefix(40))
            let form = Array(buffer: Multipart.body([.file(ImageFixtures.png, name: "profile")]))
            let refused = [ImageFixtures.notAnImage, Array("GIF8".utf8), [0xFF, 0xD8], broken, form, []]
            for bytes in refused + [TestImages.mp4, ImageFixtures.videoWithLocation, TestImages.m4a] {
                let reply = try await media.client.uploadProfileImage(
                    bytes, token: user.token, contentType: "image/jpeg")
                #expect(reply.status == 400, "\(bytes.prefix(8)) → \(reply.status) \(reply.text)")
                #expect(try reply.json.keys == ["message"])
            }
            #expect(try media.temporaryFiles().isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: media.root.directory(of: .profiles)).isEmpty)
        }
    }

    @Test func aFileOverTheLimitIs400() async throws {
        try await withMediaService(maxFileBytes: 64 * 1024) { media in
            let user = try await testUser()
            let atLimit = try await media.client.uploadProfileImage(
                ImageFixtures.largeJPEG(size: 64 * 1024), token: user.token)
            #expect(atLimit.status == 200, "\(atLimit.text)")
            let over = try await media.client.uploadProfileImage(
                ImageFixtures.largeJPEG(size: 64 * 1024 + 1), token: user.token)
            #expect(over.status == 400)
            #expect(try over.json.keys == ["message"])
            #expect(try media.temporaryFiles().isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: media.root.directory(of: .profiles)).count == 1)
        }
    }

    /// The limit holds while streaming: a 50 MB body is refused after reading little more than the limit.
    @Test func aHugeBodyIsRefusedWithoutReadingIt() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let body = CountingBody(
                head: Array(ImageFixtures.jpeg.dropLast(2)), fillerLength: 50 * 1024 * 1024, tail: [0xFF, 0xD9],
                chunkLength: 64 * 1024, pulled: .init())
            let response = try await media.post(
                body, to: "/internal/v1/profile-images", token: user.token, contentType: "image/jpeg",
                length: body.totalLength)
            #expect(response.status.code == 400)
            #expect(
                body.pulled.total < media.configuration.maxFileBytes + 1024 * 1024,
                "read \(body.pulled.total) of \(body.totalLength) bytes")
            #expect(try media.temporaryFiles().isEmpty)
        }
    }

    /// The stored image is served like any upload, to any logged-in user.
    @Test func theStoredImageIsServedUnderV1Uploads() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let reply = try await media.client.uploadProfileImage(ImageFixtures.jpegWithMetadata, token: user.token)
            let path = try #require(try reply.json.string("path"))
            let other = try await testUser()
            let download = try await media.client.download(path, token: other.token)
            #expect(download.status == 200)
            #expect(download.body == ImageFixtures.jpegWithMetadataStripped)
            #expect(download.header("Content-Type") == "image/jpeg")
            #expect(download.header("Content-Length") == String(ImageFixtures.jpegWithMetadataStripped.count))
            #expect(download.header("ETag") != nil)
            // Without a token, no image.
            #expect(try await media.client.download(path, token: nil).status == 401)
        }
    }

    @Test func tokenAndKeyCodes() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let png = ImageFixtures.png
            #expect(try await media.client.uploadProfileImage(png, token: user.token, apiKey: .some(nil)).status == 420)
            #expect(try await media.client.uploadProfileImage(png, token: nil, apiKey: "wrong").status == 420)
            #expect(try await media.client.uploadProfileImage(png, token: nil).status == 401)
            #expect(try await media.client.uploadProfileImage(png, token: "garbage").status == 401)
            let expired = try await signAccessToken(userId: user.userId, expiresIn: -5)
            let reply = try await media.client.uploadProfileImage(png, token: expired)
            #expect(reply.status == 419)
            #expect(try reply.json.keys == ["message"])
            #expect(try await media.client.uploadProfileImage(png, token: "Bearer \(user.token)").status == 200)
            // Only POST exists there.
            #expect(try await media.client.send(.get, "/internal/v1/profile-images", token: user.token).status == 444)
            #expect(try FileManager.default.contentsOfDirectory(atPath: media.root.directory(of: .profiles)).count == 1)
        }
    }
}
