import Foundation
import MediaService
import SNSTestSupport
import Testing

/// A HEIF photo's EXIF and XMP items are zeroed in its file as written, never read whole (decision 0046): every
/// shape the in-memory scrubber knows comes out of an upload exactly as that scrubber leaves it, or is refused (400)
/// where it throws.
@Suite("HEIF photos: their metadata items zeroed on disk")
struct HEIFUploadTests {
    @Test func aHEIFPhotoIsScrubbedOnDiskAsInMemory() async throws {
        typealias F = ImageFixtures
        let heic = F.heicWithMetadata
        // 65 535 items that are not metadata, each with 65 535 extents of no bytes, then nothing for item 1.
        var others: [UInt8] = [0, 0, 0, 0, 0x00, 0x00, 0xFF, 0xFF]
        for item in 2...0x1_0000 { others += F.be16(item) + [0, 0, 0xFF, 0xFF] }
        let cases: [(String, [UInt8])] = [
            ("an iPhone-like photo", heic),
            ("a file type box alone", [0, 0, 0, 0x10] + Array("ftypheic".utf8) + [0, 0, 0, 0]),
            (
                "the photo with a moov holding a location",
                heic + F.box("moov", F.box("udta", F.box([0xA9, 0x78, 0x79, 0x7A], Array("+1+2/".utf8))))
            ),
            ("cut in the middle of mdat", Array(heic.prefix(900))),
            ("cut in the middle of meta", Array(heic.prefix(150))),
            ("a box size past the end", Array(heic.prefix(28)) + [0x7F, 0, 0, 0] + Array("meta".utf8)),
            ("trailing bytes", heic + [1, 2, 3]),
            (
                "65 535 extents for the EXIF item",
                F.heif(iloc: [0, 0, 0, 0, 0x00, 0x00] + [0, 1] + [0, 1, 0, 0, 0xFF, 0xFF])
            ),
            ("65 535 other items of 65 535 extents", F.heif(iloc: others)),
        ]
        try await withMediaService { media in
            let user = try await testUser()
            for (name, bytes) in cases {
                var expected = bytes
                let inMemory = Result { () throws -> Int in
                    let items = try HEIFMetadataScrubber.scrub(&expected)
                    return items + VideoLocationScrubber.scrub(&expected)
                }
                let reply = try await media.client.upload([.file(bytes)], token: user.token)
                switch inMemory {
                case .failure:
                    #expect(reply.status == 400, "\(name): \(reply.status)")
                    #expect((try? reply.json["message"] as? String)?.contains("HEIF") == true, "\(name)")
                case .success:
                    #expect(reply.status == 200, "\(name): \(reply.text)")
                    let path = try #require(try reply.files.first, "\(name)")
                    let served = try await media.client.download(path, token: user.token)
                    #expect(served.body == expected, "\(name)")
                    #expect(served.header("ETag") == ImageFixtures.etag(expected), "\(name)")
                }
            }
            #expect(try media.temporaryFiles().isEmpty)
        }
    }
}
