import Foundation
import MediaService
import SNSPlatform
import SNSTestSupport
import Testing

@Suite("Images: type by magic number, JPEG metadata stripping")
struct ImageTypeTests {
    @Test func sniffsRealImages() {
        #expect(ImageType.sniff(ImageFixtures.jpeg) == .jpeg)
        #expect(ImageType.sniff(ImageFixtures.png) == .png)
        #expect(ImageType.sniff(ImageFixtures.gif) == .gif)
        #expect(ImageType.sniff(ImageFixtures.webp) == .webp)
        #expect(ImageType.sniff(ImageFixtures.notAnImage) == nil)
        #expect(ImageType.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)) == nil, "RIFF alone is not WebP")
        #expect(ImageType.sniff(Array("<svg xmlns=".utf8)) == nil)
    }

    /// WeeMo's videos (G2, decision 0021): MP4 and QuickTime by their `ftyp` box; HEIF images and M4A audio, which
    /// use the same box, are not taken for videos.
    @Test func sniffsVideosByTheirFileTypeBox() {
        func box(_ brand: String) -> [UInt8] { [0, 0, 0, 0x18] + Array("ftyp\(brand)".utf8) + [0, 0, 2, 0] }
        #expect(ImageType.sniff(box("isom")) == .mp4)
        #expect(ImageType.sniff(box("mp42")) == .mp4)
        #expect(ImageType.sniff(box("qt  ")) == .mov)
        #expect(ImageType.sniff(box("heic")) == nil)
        #expect(ImageType.sniff(box("M4A ")) == nil)
        #expect(ImageType.mp4.contentType == "video/mp4" && ImageType.mov.fileExtension == "mov")
    }

    @Test func strippingRemovesExifXMPIPTCAndCommentsAndKeepsTheRest() throws {
        let stripped = try JPEGMetadataStripper.strip(ImageFixtures.jpegWithMetadata)
        #expect(stripped == ImageFixtures.jpegWithMetadataStripped)
        #expect(!stripped.contains(bytes: Array("GPS".utf8)))
        #expect(!stripped.contains(bytes: Array("Exif".utf8)))
        #expect(!stripped.contains(bytes: Array("8BIM".utf8)))
        #expect(stripped.contains(bytes: Array("ICC_PROFILE".utf8)))
        // A JPEG without metadata comes through byte for byte.
        #expect(try JPEGMetadataStripper.strip(ImageFixtures.jpeg) == ImageFixtures.jpeg)
    }

    @Test func strippingDropsBytesAfterEOI() throws {
        let trailer = Array("second image with Exif GPS".utf8)
        #expect(try JPEGMetadataStripper.strip(ImageFixtures.jpeg + trailer) == ImageFixtures.jpeg)
    }

    @Test func brokenJPEGStructureIsRejected() {
        let jpeg = ImageFixtures.jpeg
        let cases: [(String, [UInt8])] = [
            ("no SOI", Array(jpeg.dropFirst(2))),
            ("truncated in the scan", Array(jpeg.dropLast(2))),
            ("truncated in a segment", Array(jpeg.prefix(30))),
            ("segment length past the end", Array(jpeg.prefix(20)) + [0xFF, 0xE1, 0xFF, 0xFF, 0x00]),
            ("garbage instead of a marker", Array(jpeg.prefix(20)) + [0x12, 0x34] + Array(jpeg.dropFirst(20))),
            ("zero segment length", Array(jpeg.prefix(20)) + [0xFF, 0xE1, 0x00, 0x00] + Array(jpeg.dropFirst(20))),
            ("only SOI and EOI", [0xFF, 0xD8, 0xFF, 0xD9]),
        ]
        for (name, bytes) in cases {
            #expect(throws: JPEGMetadataStripper.Malformed.self, "\(name)") { try JPEGMetadataStripper.strip(bytes) }
        }
    }

    /// Through the API: the JPEG with a GPS position is stored and served without its metadata, image data
    /// intact; the other formats are served exactly as uploaded.
    @Test func uploadedJPEGComesBackWithoutGPS() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let reply = try await media.client.upload(
                [
                    .file(ImageFixtures.jpegWithMetadata), .file(ImageFixtures.png), .file(ImageFixtures.gif),
                    .file(ImageFixtures.webp),
                ],
                token: user.token)
            #expect(reply.status == 200, "\(reply.text)")
            let files = try reply.files
            #expect(files.count == 4)

            let jpeg = try await media.client.download(files[0], token: user.token)
            #expect(jpeg.status == 200)
            #expect(jpeg.header("Content-Type") == "image/jpeg")
            #expect(jpeg.body == ImageFixtures.jpegWithMetadataStripped)
            #expect(!jpeg.body.contains(bytes: Array("GPS".utf8)))
            // On disk too, not just in the response.
            let onDisk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try media.location(of: files[0]))))
            #expect(onDisk == ImageFixtures.jpegWithMetadataStripped)
            #expect(
                try await media.catalog.file(path: files[0], logger: TestEnvironment.logger)?.size
                    == ImageFixtures.jpegWithMetadataStripped.count)

            let others: [([UInt8], String)] = [
                (ImageFixtures.png, "image/png"), (ImageFixtures.gif, "image/gif"), (ImageFixtures.webp, "image/webp"),
            ]
            for (file, (original, type)) in zip(files.dropFirst(), others) {
                let served = try await media.client.download(file, token: user.token)
                #expect(served.status == 200)
                #expect(served.header("Content-Type") == type)
                #expect(served.body == original)
            }
        }
    }

    @Test func aBrokenJPEGUploadIs400() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let reply = try await media.client.upload(
                [.file(Array(ImageFixtures.jpegWithMetadata.dropLast(2)))], token: user.token)
            #expect(reply.status == 400)
            #expect(try reply.json.keys == ["message"])
            #expect(try media.temporaryFiles().isEmpty)
        }
    }
}
