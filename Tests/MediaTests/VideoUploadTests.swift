import Foundation
import HTTPTypes
import Hummingbird
import MediaService
import NIOCore
import SNSPlatform
import SNSTestSupport
import Testing

/// Videos and voice memos (decision 0046): a size limit of their own, larger than the photos', and their location
/// zeroed in the file as it was written, never read whole, with exactly the in-memory walk's outcome. The limits are
/// small here (64 KiB per photo, 128 KiB per video) so that the tests move little data; the defaults (5 and 10 MiB)
/// are `MediaConfigurationTests`', and the WeeMo twin sends a 5.5 MB video through the gateway.
@Suite("Videos: a limit of their own, their location zeroed on disk")
struct VideoUploadTests {
    static let photoLimit = 64 * 1024
    static let videoLimit = 128 * 1024

    /// An iPhone-like video (`ftyp`, a large `mdat`, then `moov` with the fixture's three locations).
    static func video(mdatBytes: Int) -> [UInt8] {
        let fixture = ImageFixtures.videoWithLocation
        let mdat = [UInt8](repeating: 0x42, count: mdatBytes)
        let ftypEnd = 20  // the fixture's `ftyp` box
        let mdatEnd = ftypEnd + 14  // and its 14-byte `mdat`
        return Array(fixture[..<ftypEnd]) + ImageFixtures.box("mdat", mdat) + Array(fixture[mdatEnd...])
    }

    @Test func aVideoMayBeLargerThanAPhotoAndKeepsItsOwnLimit() async throws {
        try await withMediaService(maxFileBytes: Self.photoLimit, maxVideoBytes: Self.videoLimit) { media in
            let user = try await testUser()
            let video = Self.video(mdatBytes: 100 * 1024)
            #expect(ImageType.sniff(video) == .mov && video.count > Self.photoLimit)
            let stored = try await media.client.upload([.file(video)], token: user.token)
            #expect(stored.status == 200, "\(stored.text)")

            let photo = ImageFixtures.largeJPEG(size: 100 * 1024)
            let refusedPhoto = try await media.client.upload([.file(photo)], token: user.token)
            #expect(refusedPhoto.status == 400)
            #expect(try refusedPhoto.json["message"] as? String == "파일 용량이 너무 큽니다. (file 1 is larger than 65536 bytes)")

            let refusedVideo = try await media.client.upload(
                [.file(Self.video(mdatBytes: 130 * 1024))], token: user.token)
            #expect(refusedVideo.status == 400)
            #expect(
                try refusedVideo.json["message"] as? String == "파일 용량이 너무 큽니다. (file 1 is larger than 131072 bytes)")
            #expect(try media.temporaryFiles().isEmpty)

            // The internal route (a chat room's files, a G0 post's) applies the same two limits.
            let raw = try await media.client.send(
                .post, "/internal/v1/chat-files", token: user.token,
                headers: ["Content-Type": "application/octet-stream"], body: ByteBuffer(bytes: video))
            #expect(raw.status == 200, "\(raw.text)")
            let rawPhoto = try await media.client.send(
                .post, "/internal/v1/chat-files", token: user.token,
                headers: ["Content-Type": "application/octet-stream"], body: ByteBuffer(bytes: photo))
            #expect(rawPhoto.status == 400)
        }
    }

    /// A video far over its limit is refused after reading about the limit, like a photo (StreamingLimitTests).
    @Test func aVideoOverItsLimitStopsTheRead() async throws {
        try await withMediaService(maxFileBytes: Self.photoLimit, maxVideoBytes: Self.videoLimit) { media in
            let user = try await testUser()
            let oneMegabyte = 1024 * 1024
            let head =
                Multipart.head(.file([]), first: true) + Array(ImageFixtures.videoWithLocation[..<20])
                + ImageFixtures.be32(oneMegabyte + 8) + Array("mdat".utf8)
            let body = CountingBody(
                head: head, fillerLength: oneMegabyte, tail: Multipart.end, chunkLength: 4 * 1024, pulled: .init())
            let response = try await media.post(
                body, to: "/v1/posts/files", token: user.token, length: body.totalLength)
            #expect(response.status.code == 400)
            #expect(body.pulled.total < Self.videoLimit + 64 * 1024, "read \(body.pulled.total) bytes")
            #expect(try media.temporaryFiles().isEmpty)
        }
    }

    /// Every shape the in-memory walk knows comes out of the upload exactly as that walk leaves it, and the stored
    /// file's ETag is the hash of what is served: the location in a `moov` after a large `mdat`, a cut file, trailing
    /// bytes, a voice memo, an iTunes-style `©xyz`, a top-level `©xyz`, a video without location, containers nested
    /// too deep to follow.
    @Test func theLocationIsZeroedOnDiskAsInMemory() async throws {
        typealias F = ImageFixtures
        let xyz = F.box([0xA9, 0x78, 0x79, 0x7A], Array("+01.0+002.0/".utf8))
        var deep: [UInt8] = []
        for level in stride(from: 500, to: 0, by: -1) { deep += F.be32(8 * level + xyz.count) + Array("udta".utf8) }
        let itunes = F.box(
            "meta",
            [0, 0, 0, 0]
                + F.box("hdlr", [UInt8](repeating: 0, count: 8) + Array("mdir".utf8) + [UInt8](repeating: 0, count: 13))
                + F.box(
                    "ilst", F.box([0xA9, 0x78, 0x79, 0x7A], F.box("data", F.be32(1) + F.be32(0) + Array("+4/".utf8)))))
        let ftyp = F.box("ftyp", Array("mp42".utf8) + [0, 0, 0, 0])
        let cases: [(String, [UInt8])] = [
            ("moov after a large mdat", Self.video(mdatBytes: 100 * 1024)),
            ("cut", Array(F.videoWithLocation.dropLast(10))),
            ("trailing bytes", F.videoWithLocation + [1, 2, 3]),
            ("voice memo", TestImages.m4a),
            ("XMP in uuid and XMP_", F.videoWithXMP),
            ("iTunes-style", ftyp + F.box("moov", F.box("udta", itunes))),
            ("top-level ©xyz", ftyp + xyz + F.box("mdat", [1, 2, 3])),
            ("no location", TestImages.mp4),
            ("nested too deep", ftyp + F.box("moov", deep + xyz)),
        ]
        try await withMediaService(maxFileBytes: Self.photoLimit, maxVideoBytes: Self.videoLimit) { media in
            let user = try await testUser()
            for (name, bytes) in cases {
                var expected = bytes
                _ = VideoLocationScrubber.scrub(&expected)
                let reply = try await media.client.upload([.file(bytes)], token: user.token)
                #expect(reply.status == 200, "\(name): \(reply.text)")
                let path = try #require(try reply.files.first, "\(name)")
                let served = try await media.client.download(path, token: user.token)
                #expect(served.body == expected, "\(name)")
                #expect(served.header("ETag") == ImageFixtures.etag(expected), "\(name)")
                let onDisk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try media.location(of: path))))
                #expect(onDisk == expected, "\(name)")
            }
            #expect(try media.temporaryFiles().isEmpty)
        }
    }
}
