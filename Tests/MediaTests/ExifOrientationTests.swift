import SNSTestSupport
import Testing

@testable import MediaService

/// A stored photo keeps its orientation and nothing else of its Exif (decision 0048): an iPhone's portrait photo,
/// sent as `UIImage.jpegData` makes it, has its pixels sideways and Exif orientation 6; without that tag every app
/// shows it lying on its side. (Uploads through the service: `PNGAndWebPStripperTests.uploadsAreStoredWithoutTheirMetadata`.)
@Suite("Exif orientation kept")
struct ExifOrientationTests {
    typealias F = ImageFixtures

    /// A TIFF structure like a camera's: the maker, the orientation, a pointer to a GPS directory holding a latitude.
    static func cameraTIFF(orientation: UInt16, bigEndian: Bool = true) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]
        }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        // Header 8, directory 0 at 8: 2 + 3 × 12 + 4 = 42 → GPS directory at 50: 2 + 12 + 4 = 18 → strings at 68.
        let make = Array("Apple\0".utf8), latitude = Array("GPSLatitude 37.5665 N\0".utf8)
        return (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8)
            + u16(3)
            + u16(0x010F) + u16(2) + u32(make.count) + u32(68)  // Make, ASCII
            + u16(0x0112) + u16(3) + u32(1) + u16(Int(orientation)) + u16(0)  // Orientation, SHORT
            + u16(0x8825) + u16(4) + u32(1) + u32(50)  // GPS directory, LONG
            + u32(0)
            + u16(1) + u16(0x0002) + u16(2) + u32(latitude.count) + u32(74) + u32(0)  // GPSLatitude, ASCII
            + make + latitude
    }

    /// `jpeg` with an Exif segment of `cameraTIFF` (and an XMP segment) after APP0.
    static func jpeg(orientation: UInt16, bigEndian: Bool = true) -> [UInt8] {
        Array(F.jpeg[..<F.jpegHeaderLength])
            + F.segment(0xE1, ExifOrientation.identifier + cameraTIFF(orientation: orientation, bigEndian: bigEndian))
            + F.xmp + Array(F.jpeg[F.jpegHeaderLength...])
    }

    /// What must be stored for a JPEG with this orientation: an Exif segment of one entry, written out by hand.
    static func storedJPEG(orientation: UInt8) -> [UInt8] {
        Array(F.jpeg[..<F.jpegHeaderLength])
            + [0xFF, 0xE1, 0x00, 0x22] + Array("Exif\0\0".utf8)
            + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01]
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, orientation, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
            + Array(F.jpeg[F.jpegHeaderLength...])
    }

    static func streamed<Filter: StreamingMetadataFilter>(
        _ filter: Filter.Type, _ bytes: [UInt8], chunks sizes: [Int]
    ) throws -> [UInt8] {
        var stripper = Filter()
        var output: [UInt8] = []
        for chunk in PNGAndWebPStripperTests.split(bytes, sizes) { try stripper.feed(chunk, into: &output) }
        for patch in try stripper.finish() {
            output.replaceSubrange(patch.offset..<patch.offset + patch.bytes.count, with: patch.bytes)
        }
        return output
    }

    @Test func theOrientationIsReadFromEitherByteOrderAndNothingElseCounts() {
        for bigEndian in [true, false] {
            for orientation: UInt16 in 2...8 {
                #expect(
                    ExifOrientation.orientation(
                        inTIFF: Self.cameraTIFF(orientation: orientation, bigEndian: bigEndian)[...])
                        == orientation)
            }
            // Upright, and values no TIFF reader knows, are no orientation to keep.
            for orientation: UInt16 in [0, 1, 9, 0xFFFF] {
                #expect(
                    ExifOrientation.orientation(
                        inTIFF: Self.cameraTIFF(orientation: orientation, bigEndian: bigEndian)[...])
                        == nil)
            }
        }
        var tiff = Self.cameraTIFF(orientation: 6)
        #expect(ExifOrientation.orientation(inExif: (ExifOrientation.identifier + tiff)[...]) == 6)
        tiff[25] = 4  // the orientation entry's type: LONG instead of SHORT
        #expect(ExifOrientation.orientation(inTIFF: tiff[...]) == nil)
        let cases: [(String, [UInt8])] = [
            ("no TIFF header", Array("GPSLatitude 37.5665".utf8)),
            ("not 42", [0x4D, 0x4D, 0x00, 0x2B] + Array(Self.cameraTIFF(orientation: 6)[4...])),
            ("a directory past the end", [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x01, 0x00, 0x00]),
            ("a directory inside the header", [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00]),
            ("entries past the end", Array(Self.cameraTIFF(orientation: 6)[..<30])),
            ("the old fixture's text after the header", Array(F.exifWithGPS[10...])),
        ]
        for (name, bytes) in cases { #expect(ExifOrientation.orientation(inTIFF: bytes[...]) == nil, "\(name)") }
    }

    @Test func aJPEGKeepsItsOrientationInAnExifOfItsOwn() throws {
        for bigEndian in [true, false] {
            let upload = Self.jpeg(orientation: 6, bigEndian: bigEndian)
            for chunks in PNGAndWebPStripperTests.chunkings {
                let stored = try Self.streamed(JPEGMetadataStripper.self, upload, chunks: chunks)
                #expect(stored == Self.storedJPEG(orientation: 6), "chunks \(chunks)")
                #expect(!stored.contains(bytes: Array("GPSLatitude".utf8)))
                #expect(!stored.contains(bytes: Array("Apple".utf8)))
            }
        }
        // Upright: no Exif at all, as before.
        #expect(try JPEGMetadataStripper.strip(Self.jpeg(orientation: 1)) == F.jpeg)
        // Only the first Exif segment counts; a second one is dropped whole.
        let twice =
            Array(F.jpeg[..<F.jpegHeaderLength])
            + F.segment(0xE1, ExifOrientation.identifier + Self.cameraTIFF(orientation: 8))
            + F.segment(0xE1, ExifOrientation.identifier + Self.cameraTIFF(orientation: 3))
            + Array(F.jpeg[F.jpegHeaderLength...])
        #expect(try JPEGMetadataStripper.strip(twice) == Self.storedJPEG(orientation: 8))
        // Metadata of every other kind goes as before.
        #expect(try JPEGMetadataStripper.strip(F.jpegWithMetadata) == F.jpegWithMetadataStripped)
        // A file that ends inside its Exif segment is refused, as any other cut segment.
        let cut = Array(Self.jpeg(orientation: 6)[..<(F.jpegHeaderLength + 30)])
        #expect(throws: JPEGMetadataStripper.Malformed(reason: "segment 0xe1 at byte 20 runs past the end")) {
            try JPEGMetadataStripper.strip(cut)
        }
    }

    /// `png` with an `eXIf` chunk of `cameraTIFF` (little-endian) after IHDR, and a comment.
    static let pngWithOrientation: [UInt8] =
        Array(F.png[..<F.pngHeaderLength])
        + F.pngChunk("eXIf", cameraTIFF(orientation: 8, bigEndian: false))
        + F.pngChunk("tEXt", Array("Comment\u{0}taken at home".utf8))
        + Array(F.png[F.pngHeaderLength...])

    /// The `eXIf` chunk stored for orientation 8, its CRC computed by zlib (`zlib.crc32(b"eXIf" + data)`).
    static let storedEXIfChunk: [UInt8] =
        [0x00, 0x00, 0x00, 0x1A] + Array("eXIf".utf8)
        + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01]
        + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        + [0x86, 0x58, 0x30, 0x34]

    /// What must be stored for `pngWithOrientation`.
    static let storedPNG: [UInt8] =
        Array(F.png[..<F.pngHeaderLength]) + storedEXIfChunk + Array(F.png[F.pngHeaderLength...])

    @Test func aPNGKeepsItsOrientationInAnEXIfChunkOfItsOwn() throws {
        for chunks in PNGAndWebPStripperTests.chunkings {
            #expect(
                try Self.streamed(PNGMetadataStripper.self, Self.pngWithOrientation, chunks: chunks) == Self.storedPNG)
        }
        // Without an orientation the chunk goes whole, as before.
        #expect(try PNGMetadataStripper.strip(F.pngWithMetadata) == F.png)
    }

    /// `extendedWebP` with EXIF and XMP flags, an `EXIF` chunk (with the `Exif\0\0` identifier some writers put
    /// first) and an `XMP ` chunk.
    static let webpWithOrientation: [UInt8] = F.extendedWebP(
        flags: 0x08 | 0x04,
        after: F.riffChunk("EXIF", ExifOrientation.identifier + cameraTIFF(orientation: 3))
            + F.riffChunk("XMP ", Array("<x:xmpmeta exif:GPSLatitude=\"37\"/>".utf8)))

    @Test func aWebPKeepsItsOrientationAndItsExifFlag() throws {
        let expected = F.extendedWebP(
            flags: 0x08,
            after: Array("EXIF".utf8) + F.le32(26)
                + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01]
                + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        for chunks in PNGAndWebPStripperTests.chunkings {
            #expect(try Self.streamed(WebPMetadataStripper.self, Self.webpWithOrientation, chunks: chunks) == expected)
        }
        // Without an orientation both flags go, as before.
        #expect(try WebPMetadataStripper.strip(F.webpWithMetadata) == F.extendedWebP(flags: 0))
    }
}
