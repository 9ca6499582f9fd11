import Foundation
import MediaService
import SNSPlatform
import SNSTestSupport
import Testing

@Suite("Images: type by magic number, JPEG and HEIF metadata removal")
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

    /// WeeMo's videos (G2, decision 0021): MP4 and QuickTime by their `ftyp` box; HEIF photos, which use the same box,
    /// are photos (decision 0044); M4A audio (its voice memos) is stored as `.mp4` and served as audio (decision 0045);
    /// AVIF is refused.
    @Test func sniffsVideosByTheirFileTypeBox() {
        func box(_ brand: String) -> [UInt8] { [0, 0, 0, 0x18] + Array("ftyp\(brand)".utf8) + [0, 0, 2, 0] }
        #expect(ImageType.sniff(box("isom")) == .mp4)
        #expect(ImageType.sniff(box("mp42")) == .mp4)
        #expect(ImageType.sniff(box("qt  ")) == .mov)
        #expect(ImageType.sniff(box("heic")) == .heic)
        #expect(ImageType.sniff(box("mif1")) == .heic)
        #expect(ImageType.sniff(ImageFixtures.heicWithMetadata) == .heic)
        #expect(ImageType.heic.contentType == "image/heic" && ImageType.heic.fileExtension == "heic")
        #expect(ImageType.sniff(box("M4A ")) == .m4a)
        #expect(ImageType.sniff(TestImages.m4a) == .m4a)
        #expect(ImageType.m4a.fileExtension == "mp4" && ImageType.m4a.contentType == "audio/mp4")
        #expect(ImageType.sniff(box("M4B ")) == nil, "audiobooks are not voice memos")
        #expect(ImageType.sniff(box("avif")) == nil)
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

    /// A HEIF photo keeps every byte but those of its EXIF and XMP items, which become zeros; one without such
    /// items, or a file whose metadata items' bytes lie outside it, as they are / refused.
    @Test func scrubbingZeroesAHEIFPhotosExifAndXMPItemsInPlace() throws {
        var scrubbed = ImageFixtures.heicWithMetadata
        #expect(try HEIFMetadataScrubber.scrub(&scrubbed) == 2)
        var expected = ImageFixtures.heicWithMetadata
        for range in ImageFixtures.heicMetadataRanges {
            expected.replaceSubrange(range, with: repeatElement(0, count: range.count))
        }
        #expect(scrubbed == expected)
        #expect(!scrubbed.contains(bytes: Array("GPSLEAKPHONE".utf8)))
        #expect(!scrubbed.contains(bytes: Array("GPSLatitude".utf8)))
        #expect(ImageFixtures.heicWithMetadata.contains(bytes: Array("GPSLEAKPHONE".utf8)), "the fixture has them")
        // Scrubbing again finds the items and zeroes what is already zero.
        var again = scrubbed
        #expect(try HEIFMetadataScrubber.scrub(&again) == 2 && again == scrubbed)

        // Just a file type box: nothing to do.
        var bare: [UInt8] = [0, 0, 0, 0x10] + Array("ftypheic".utf8) + [0, 0, 0, 0]
        #expect(try HEIFMetadataScrubber.scrub(&bare) == 0)

        let cases: [(String, [UInt8])] = [
            ("cut in the middle of mdat", Array(ImageFixtures.heicWithMetadata.prefix(900))),
            ("cut in the middle of meta", Array(ImageFixtures.heicWithMetadata.prefix(150))),
            (
                "a box size past the end",
                Array(ImageFixtures.heicWithMetadata.prefix(28)) + [0x7F, 0, 0, 0] + Array("meta".utf8)
            ),
        ]
        for (name, bytes) in cases {
            var copy = bytes
            #expect(throws: HEIFMetadataScrubber.Malformed.self, "\(name)") { try HEIFMetadataScrubber.scrub(&copy) }
        }
    }

    /// A video keeps every byte but its location values (`©xyz`, `loci`, the ISO 6709 metadata item), which become
    /// zeros; the make "Apple" stays. A video without location, or with trailing bytes, is walked as far as it fits.
    @Test func scrubbingZeroesAVideosLocationInPlace() {
        var scrubbed = ImageFixtures.videoWithLocation
        #expect(VideoLocationScrubber.scrub(&scrubbed) == 3)
        #expect(scrubbed.count == ImageFixtures.videoWithLocation.count)
        #expect(ImageFixtures.videoWithLocation.contains(bytes: Array("+37.5665".utf8)), "the fixture has it")
        #expect(!scrubbed.contains(bytes: Array("+37.5665".utf8)))
        #expect(!scrubbed.contains(bytes: Array("Seoul City Hall".utf8)))
        #expect(scrubbed.contains(bytes: Array("Apple".utf8)) && scrubbed.contains(bytes: Array("frames".utf8)))
        #expect(scrubbed.contains(bytes: Array("com.apple.quicktime.location.ISO6709".utf8)), "keys stay, values go")
        #expect(ImageType.sniff(scrubbed) == .mov)

        var plain = TestImages.mp4
        #expect(VideoLocationScrubber.scrub(&plain) == 0 && plain == TestImages.mp4)
        var trailing = ImageFixtures.videoWithLocation + [1, 2, 3]
        #expect(VideoLocationScrubber.scrub(&trailing) == 3)
        #expect(!trailing.contains(bytes: Array("+37.5665".utf8)))
        var cut = Array(ImageFixtures.videoWithLocation.dropLast(10))
        // A `moov` cut short is taken to end with the file: what it still holds is scrubbed.
        #expect(VideoLocationScrubber.scrub(&cut) == 3)
        #expect(!cut.contains(bytes: Array("+37.5665".utf8)))
    }

    /// A voice memo (decision 0045) loses its `loci` box's position and keeps every other byte: its AAC frames, its
    /// title.
    @Test func scrubbingZeroesAVoiceMemosLocationInPlace() {
        var scrubbed = TestImages.m4a
        #expect(VideoLocationScrubber.scrub(&scrubbed) == 1)
        let loci = 1502
        #expect(Array(TestImages.m4a[loci + 4..<loci + 8]) == Array("loci".utf8), "where the fixture keeps it")
        #expect(TestImages.m4a[loci + 12..<TestImages.m4a.count].contains { $0 != 0 }, "the fixture has a position")
        #expect(scrubbed[loci + 12..<scrubbed.count].allSatisfy { $0 == 0 })
        #expect(Array(scrubbed[..<(loci + 12)]) == Array(TestImages.m4a[..<(loci + 12)]))
        #expect(scrubbed.contains(bytes: Array("Seoul City Hall".utf8)), "a title is no location")
    }

    /// XMP, top-level in a `uuid` box or in `udta/XMP_`, goes whole (decision 0046); another `uuid` box stays.
    @Test func scrubbingZeroesAVideosXMP() {
        var scrubbed = ImageFixtures.videoWithXMP
        #expect(ImageFixtures.videoWithXMP.contains(bytes: Array("GPSLatitude".utf8)), "the fixture has it")
        #expect(VideoLocationScrubber.scrub(&scrubbed) == 2)
        #expect(scrubbed.count == ImageFixtures.videoWithXMP.count)
        #expect(
            !scrubbed.contains(bytes: Array("GPSLatitude".utf8)) && !scrubbed.contains(bytes: Array("xmpmeta".utf8)))
        #expect(scrubbed.contains(bytes: Array("keep me".utf8)) && scrubbed.contains(bytes: Array("frames".utf8)))
        #expect(scrubbed.contains(bytes: [0xBE, 0x7A, 0xCF, 0xCB]), "XMP's UUID stays")
    }

    /// Hostile shapes end quickly and never trap: containers nested 50 000 deep (not followed past a few levels), a
    /// `©xyz` in an iTunes-style `ilst` without `keys` (zeroed), a HEIF whose `iloc` gives its EXIF item 65 535
    /// extents of no bytes (refused) or gives 65 535 other items 65 535 such extents each (skipped without reading).
    @Test func hostileBoxStructuresEndQuicklyWithoutATrap() throws {
        typealias F = ImageFixtures
        var nested = F.box("ftyp", Array("isom".utf8) + [0, 0, 2, 0])
        let xyz = F.box([0xA9, 0x78, 0x79, 0x7A], Array("+01.0+002.0/".utf8))
        var deep: [UInt8] = []
        for level in stride(from: 50_000, to: 0, by: -1) { deep += F.be32(8 * level + xyz.count) + Array("udta".utf8) }
        deep += xyz
        nested += F.box("moov", deep)
        #expect(VideoLocationScrubber.scrub(&nested) == 0, "not followed that deep")

        let itunes = F.box(
            "meta",
            [0, 0, 0, 0]
                + F.box("hdlr", [UInt8](repeating: 0, count: 8) + Array("mdir".utf8) + [UInt8](repeating: 0, count: 13))
                + F.box(
                    "ilst",
                    F.box(
                        [0xA9, 0x78, 0x79, 0x7A],
                        F.box("data", F.be32(1) + F.be32(0) + Array("+48.8583+002.2945/".utf8)))))
        var withoutKeys = F.box("ftyp", Array("mp42".utf8) + [0, 0, 0, 0]) + F.box("moov", F.box("udta", itunes))
        #expect(VideoLocationScrubber.scrub(&withoutKeys) == 1)
        #expect(!withoutKeys.contains(bytes: Array("+48.8583".utf8)))

        // iloc version 0, every field size 0: item 1 (the EXIF item) with 65 535 extents.
        var tooMany = F.heif(iloc: [0, 0, 0, 0, 0x00, 0x00] + [0, 1] + [0, 1, 0, 0, 0xFF, 0xFF])
        #expect(throws: HEIFMetadataScrubber.Malformed.self) { try HEIFMetadataScrubber.scrub(&tooMany) }
        // 65 535 items that are not metadata, each with 65 535 extents of no bytes, then nothing for item 1.
        var others: [UInt8] = [0, 0, 0, 0, 0x00, 0x00, 0xFF, 0xFF]
        for item in 2...0x1_0000 { others += F.be16(item) + [0, 0, 0xFF, 0xFF] }
        var skipped = F.heif(iloc: others)
        #expect(try HEIFMetadataScrubber.scrub(&skipped) == 0)
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

    /// Through the API: the JPEG and the HEIF photo with a GPS position are stored and served without their metadata,
    /// image data intact, the video and the voice memo without their location; the other formats are served exactly as
    /// uploaded.
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

            let heic = try await media.client.upload([.file(ImageFixtures.heicWithMetadata)], token: user.token)
            #expect(heic.status == 200, "\(heic.text)")
            let heicPath = try #require(try heic.files.first)
            #expect(heicPath.hasSuffix(".heic"))
            let servedHEIC = try await media.client.download(heicPath, token: user.token)
            #expect(servedHEIC.header("Content-Type") == "image/heic")
            var scrubbed = ImageFixtures.heicWithMetadata
            _ = try HEIFMetadataScrubber.scrub(&scrubbed)
            #expect(servedHEIC.body == scrubbed)
            #expect(!servedHEIC.body.contains(bytes: Array("GPSLEAKPHONE".utf8)))

            let video = try await media.client.upload([.file(ImageFixtures.videoWithLocation)], token: user.token)
            #expect(video.status == 200, "\(video.text)")
            let servedVideo = try await media.client.download(try #require(try video.files.first), token: user.token)
            #expect(servedVideo.header("Content-Type") == "video/quicktime")
            var scrubbedVideo = ImageFixtures.videoWithLocation
            _ = VideoLocationScrubber.scrub(&scrubbedVideo)
            #expect(servedVideo.body == scrubbedVideo)

            let memo = try await media.client.upload([.file(TestImages.m4a)], token: user.token)
            #expect(memo.status == 200, "\(memo.text)")
            let memoPath = try #require(try memo.files.first)
            #expect(memoPath.hasSuffix(".mp4"), "WeeMo plays a chat file as a video when its path says .mp4")
            let servedMemo = try await media.client.download(memoPath, token: user.token)
            #expect(servedMemo.header("Content-Type") == "audio/mp4")
            var scrubbedMemo = TestImages.m4a
            _ = VideoLocationScrubber.scrub(&scrubbedMemo)
            #expect(servedMemo.body == scrubbedMemo && scrubbedMemo != TestImages.m4a)

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
