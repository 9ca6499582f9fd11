import MediaService
import SNSTestSupport
import Testing

/// A PNG's Exif and text chunks and a WebP's Exif and XMP chunks are left out as the upload streams in (decision
/// 0047): what is left is the same picture, byte for byte, whatever the chunks the bytes arrive in; a file whose
/// structure does not hold is refused, never stored with its metadata.
@Suite("PNG and WebP metadata stripping")
struct PNGAndWebPStripperTests {
    /// PNG's outcome fed in chunks of these sizes (cycled).
    static func streamedPNG(_ bytes: [UInt8], chunks sizes: [Int]) -> Result<[UInt8], PNGMetadataStripper.Malformed> {
        var stripper = PNGMetadataStripper()
        var output: [UInt8] = []
        do {
            for chunk in Self.split(bytes, sizes) { try stripper.feed(chunk, into: &output) }
            #expect(try stripper.finish() == [], "a PNG needs no patch")
            return .success(output)
        } catch let error as PNGMetadataStripper.Malformed {
            return .failure(error)
        } catch {
            Issue.record(error)
            return .success([])
        }
    }

    /// WebP's outcome, patches applied, fed in chunks of these sizes (cycled).
    static func streamedWebP(
        _ bytes: [UInt8], chunks sizes: [Int]
    ) -> Result<[UInt8], WebPMetadataStripper.Malformed> {
        var stripper = WebPMetadataStripper()
        var output: [UInt8] = []
        do {
            for chunk in Self.split(bytes, sizes) { try stripper.feed(chunk, into: &output) }
            for patch in try stripper.finish() {
                output.replaceSubrange(patch.offset..<patch.offset + patch.bytes.count, with: patch.bytes)
            }
            return .success(output)
        } catch let error as WebPMetadataStripper.Malformed {
            return .failure(error)
        } catch {
            Issue.record(error)
            return .success([])
        }
    }

    static func split(_ bytes: [UInt8], _ sizes: [Int]) -> [ArraySlice<UInt8>] {
        var chunks: [ArraySlice<UInt8>] = []
        var start = 0
        var next = 0
        while start < bytes.count {
            let end = min(bytes.count, start + sizes[next % sizes.count])
            chunks.append(bytes[start..<end])
            start = end
            next += 1
        }
        return chunks
    }

    static let chunkings = [[Int.max], [1], [2, 7, 1, 64], [4096], [3, 5]]

    @Test func aPNGLosesItsExifAndTextChunksAndWhatFollowsIEND() throws {
        let stripped = try PNGMetadataStripper.strip(ImageFixtures.pngWithMetadata)
        #expect(stripped == ImageFixtures.png)
        for marker in ["GPS", "eXIf", "tEXt", "zTXt", "iTXt", "xmpmeta", "caBX", "iDOT"] {
            #expect(!stripped.contains(bytes: Array(marker.utf8)), "\(marker)")
        }
        for chunks in Self.chunkings {
            #expect(Self.streamedPNG(ImageFixtures.pngWithMetadata, chunks: chunks) == .success(ImageFixtures.png))
        }
        #expect(try PNGMetadataStripper.strip(ImageFixtures.png) == ImageFixtures.png, "nothing to strip")
        #expect(try PNGMetadataStripper.strip(TestImages.png) == TestImages.png)
    }

    /// Every other chunk stays, before or after the image data: colour, time, an animation's, unknown ones.
    @Test func aPNGKeepsEveryOtherChunk() throws {
        typealias F = ImageFixtures
        let kept =
            F.pngChunk("sRGB", [0]) + F.pngChunk("tIME", [7, 234, 12, 2, 9, 0, 0])
            + F.pngChunk("acTL", F.be32(1) + F.be32(0)) + F.pngChunk("prVt", [1, 2, 3])
        let input =
            Array(F.png[..<F.pngHeaderLength]) + kept + F.pngChunk("tEXt", Array("Title\u{0}x".utf8))
            + Array(F.png[F.pngHeaderLength...].dropLast(12)) + F.pngChunk("eXIf", [1, 2]) + Array(F.png.suffix(12))
        let expected = Array(F.png[..<F.pngHeaderLength]) + kept + Array(F.png[F.pngHeaderLength...])
        #expect(try PNGMetadataStripper.strip(input) == expected)
    }

    @Test func aBrokenPNGIsRefusedWithItsReason() {
        typealias F = ImageFixtures
        let png = F.png
        let cases: [(String, [UInt8], String)] = [
            ("bad signature", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x00] + png[8...], "not a PNG signature"),
            ("signature only", Array(png[..<8]), "no IEND chunk"),
            ("cut in a header", Array(png[..<12]), "truncated chunk header at byte 8"),
            ("cut in IDAT", Array(png[..<50]), "chunk IDAT at byte 33 runs past the end"),
            ("no IEND", Array(png.dropLast(12)), "no IEND chunk"),
            (
                "huge length", Array(png[..<33]) + [0x80, 0, 0, 0] + Array("IDAT".utf8),
                "chunk length over 2^31 at byte 33"
            ),
            (
                "type not letters", Array(png[..<33]) + F.be32(0) + [0x49, 0x44, 0x41, 0x31],
                "chunk type is not four letters at byte 37"
            ),
        ]
        for (name, bytes, reason) in cases {
            for chunks in Self.chunkings {
                #expect(Self.streamedPNG(bytes, chunks: chunks) == .failure(.init(reason: reason)), "\(name) \(chunks)")
            }
        }
    }

    @Test func aWebPLosesItsExifAndXMPAndItsHeaderSaysSo() throws {
        typealias F = ImageFixtures
        let expected = F.extendedWebP(flags: 0)
        let stripped = try WebPMetadataStripper.strip(F.webpWithMetadata)
        #expect(stripped == expected)
        for marker in ["GPS", "xmpmeta", "C2PA", "c2pa"] {
            #expect(!stripped.contains(bytes: Array(marker.utf8)), "\(marker)")
        }
        for chunks in Self.chunkings {
            #expect(Self.streamedWebP(F.webpWithMetadata, chunks: chunks) == .success(expected), "\(chunks)")
        }
        #expect(try WebPMetadataStripper.strip(F.webp) == F.webp, "nothing to strip")
        let plain = F.extendedWebP(flags: 0x10)  // alpha: no metadata, nothing changes
        #expect(try WebPMetadataStripper.strip(plain) == plain)
        // Metadata without the flags that announce it: dropped, the flags left as they were.
        let unannounced = F.extendedWebP(flags: 0x20, after: F.riffChunk("EXIF", [1, 2, 3, 4]))
        #expect(try WebPMetadataStripper.strip(unannounced) == F.extendedWebP(flags: 0x20))
        // The simple format (no VP8X) with an EXIF chunk after the image: dropped, the RIFF size corrected.
        #expect(try WebPMetadataStripper.strip(F.webpFile(Array(F.webp[12...]) + F.riffChunk("EXIF", [9]))) == F.webp)
    }

    @Test func aBrokenWebPIsRefusedWithItsReason() {
        typealias F = ImageFixtures
        let webp = F.webp
        let cases: [(String, [UInt8], String)] = [
            ("cut in the header", Array(webp[..<10]), "truncated RIFF header"),
            ("not WEBP", Array("RIFF".utf8) + F.le32(26) + Array("WAVE".utf8) + webp[12...], "not a RIFF WEBP header"),
            (
                "no chunk", Array("RIFF".utf8) + F.le32(4) + Array("WEBP".utf8),
                "a RIFF container of 4 bytes holds no chunk"
            ),
            ("cut in a chunk", Array(webp.dropLast(3)), "chunk VP8L at byte 12 runs past the end"),
            (
                "a chunk past the container", Array("RIFF".utf8) + F.le32(20) + Array("WEBP".utf8) + webp[12...],
                "chunk VP8L at byte 12 runs past the RIFF container's end"
            ),
            (
                "a type that is not text", Array(webp[..<12]) + [0x56, 0x50, 0x38, 0x0A] + webp[16...],
                "chunk type is not four printable characters at byte 12"
            ),
            (
                "container longer than the file", Array("RIFF".utf8) + F.le32(40) + Array("WEBP".utf8) + webp[12...],
                "the file ends at byte 34, inside a RIFF container of 48 bytes"
            ),
        ]
        for (name, bytes, reason) in cases {
            for chunks in Self.chunkings {
                #expect(
                    Self.streamedWebP(bytes, chunks: chunks) == .failure(.init(reason: reason)), "\(name) \(chunks)")
            }
        }
    }

    /// Through the service: what is stored and served is the stripped file, its ETag the hash of those bytes (a WebP's
    /// header was corrected after it was written); a broken file is 400 and leaves no temp file. (Every route that
    /// stores files writes them through the same `FilePartWriter`.)
    @Test func uploadsAreStoredWithoutTheirMetadata() async throws {
        typealias F = ImageFixtures
        let cases: [(String, [UInt8], [UInt8])] = [
            ("PNG", F.pngWithMetadata, F.png),
            ("WebP", F.webpWithMetadata, F.extendedWebP(flags: 0)),
            ("plain PNG", F.png, F.png),
            ("plain WebP", F.webp, F.webp),
            // Decision 0048: the orientation stays, in an Exif of its own.
            (
                "JPEG with an orientation", ExifOrientationTests.jpeg(orientation: 6),
                ExifOrientationTests.storedJPEG(orientation: 6)
            ),
            ("PNG with an orientation", ExifOrientationTests.pngWithOrientation, ExifOrientationTests.storedPNG),
        ]
        try await withMediaService { media in
            let user = try await testUser()
            for (name, upload, expected) in cases {
                let reply = try await media.client.upload([.file(upload)], token: user.token)
                #expect(reply.status == 200, "\(name): \(reply.text)")
                let path = try #require(try reply.files.first, "\(name)")
                let served = try await media.client.download(path, token: user.token)
                #expect(served.body == expected, "\(name)")
                #expect(served.header("ETag") == ImageFixtures.etag(expected), "\(name)")
            }

            let broken = try await media.client.upload(
                [.file(F.png), .file(Array(F.png.dropLast(12)))], token: user.token)
            #expect(broken.status == 400)
            #expect(
                try broken.json["message"] as? String
                    == "손상된 PNG 파일입니다. (file 2 is not a well-formed PNG: no IEND chunk)")
            let brokenWebP = try await media.client.upload([.file(Array(F.webp.dropLast(3)))], token: user.token)
            #expect(
                try brokenWebP.json["message"] as? String
                    == "손상된 WebP 파일입니다. (file 1 is not a well-formed WebP: chunk VP8L at byte 12 runs past the end)")
            #expect(try media.temporaryFiles().isEmpty)
        }
    }
}
