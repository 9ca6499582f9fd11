import Crypto
import Foundation
import SNSTestSupport

@testable import MediaService

/// Tiny but valid images, as bytes, for type sniffing and metadata stripping. Each decodes with standard tools
/// (`djpeg`, `pngfix`, `file`); the JPEG was made by `cjpeg` from a 2×2 PPM.
enum ImageFixtures {
    /// A 2×2 baseline JPEG: SOI, APP0 (JFIF), 2×DQT, SOF0, 4×DHT, SOS, scan data, EOI. No metadata.
    static let jpeg: [UInt8] = [
        0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
        0x00, 0x01, 0x00, 0x00, 0xFF, 0xDB, 0x00, 0x43, 0x00, 0x06, 0x04, 0x05, 0x06, 0x05, 0x04, 0x06,
        0x06, 0x05, 0x06, 0x07, 0x07, 0x06, 0x08, 0x0A, 0x10, 0x0A, 0x0A, 0x09, 0x09, 0x0A, 0x14, 0x0E,
        0x0F, 0x0C, 0x10, 0x17, 0x14, 0x18, 0x18, 0x17, 0x14, 0x16, 0x16, 0x1A, 0x1D, 0x25, 0x1F, 0x1A,
        0x1B, 0x23, 0x1C, 0x16, 0x16, 0x20, 0x2C, 0x20, 0x23, 0x26, 0x27, 0x29, 0x2A, 0x29, 0x19, 0x1F,
        0x2D, 0x30, 0x2D, 0x28, 0x30, 0x25, 0x28, 0x29, 0x28, 0xFF, 0xDB, 0x00, 0x43, 0x01, 0x07, 0x07,
        0x07, 0x0A, 0x08, 0x0A, 0x13, 0x0A, 0x0A, 0x13, 0x28, 0x1A, 0x16, 0x1A, 0x28, 0x28, 0x28, 0x28,
        0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28,
        0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28,
        0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0x28, 0xFF, 0xC0,
        0x00, 0x11, 0x08, 0x00, 0x02, 0x00, 0x02, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11,
        0x01, 0xFF, 0xC4, 0x00, 0x15, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0xFF, 0xC4, 0x00, 0x1C, 0x10, 0x00, 0x03, 0x00,
        0x02, 0x03, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03,
        0x00, 0x05, 0x04, 0x06, 0x07, 0x21, 0xFF, 0xC4, 0x00, 0x14, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0xFF, 0xC4, 0x00, 0x1A,
        0x11, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x01, 0x02, 0x04, 0x33, 0x71, 0xB1, 0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02,
        0x11, 0x03, 0x11, 0x00, 0x3F, 0x00, 0xBA, 0xF9, 0xBE, 0x9F, 0x59, 0x7F, 0x3B, 0xEA, 0xD6, 0xBE,
        0xBB, 0x87, 0x4A, 0xD3, 0x55, 0xC5, 0x77, 0x77, 0x82, 0x96, 0x66, 0x31, 0x52, 0x49, 0x24, 0x7D,
        0x27, 0x18, 0xC6, 0x15, 0x71, 0x2A, 0xEC, 0xF4, 0x0A, 0x77, 0x3A, 0xEC, 0xF4, 0x7F, 0xFF, 0xD9,
    ]

    /// A 1×1 RGB PNG.
    static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
        0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60, 0x68, 0xF8, 0x0F,
        0x00, 0x02, 0x03, 0x01, 0x80, 0x24, 0x61, 0xF5, 0x97, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E,
        0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    /// A 1×1 GIF89a.
    static let gif: [UInt8] = [
        0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
        0xFF, 0xFF, 0xFF, 0x21, 0xF9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B,
    ]

    /// A 1×1 lossless WebP (RIFF/WEBP/VP8L).
    static let webp: [UInt8] = [
        0x52, 0x49, 0x46, 0x46, 0x1A, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x4C,
        0x0D, 0x00, 0x00, 0x00, 0x2F, 0x00, 0x00, 0x00, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xFE,
        0x07, 0x00,
    ]

    /// Bytes of `jpeg` up to and including its APP0 segment: metadata segments are inserted after this.
    static let jpegHeaderLength = 20

    /// One JPEG segment: marker, big-endian length (counting itself), payload.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// An Exif APP1 segment that carries a GPS position, the thing that must never leak.
    static let exifWithGPS = segment(
        0xE1, Array("Exif\0\0MM\0*\0\0\0\u{8}GPSLatitude 37.5665 N GPSLongitude 126.9780 E".utf8))
    /// An XMP APP1 segment with a location.
    static let xmp = segment(
        0xE1,
        Array(
            "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><exif:GPSLatitude>37,33.99N</exif:GPSLatitude></x:xmpmeta>".utf8))
    /// An ICC profile APP2 segment: colour, not metadata; it must stay.
    static let iccProfile = segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + [UInt8](repeating: 0x42, count: 16))
    /// An IPTC/Photoshop APP13 segment.
    static let photoshop = segment(0xED, Array("Photoshop 3.0\08BIM".utf8) + [4, 4, 0, 0, 0, 0, 0, 0])
    /// A comment segment.
    static let comment = segment(0xFE, Array("taken at home, GPS 37.5665 126.9780".utf8))

    /// `jpeg` with Exif (GPS), XMP, an ICC profile, IPTC and a comment inserted after APP0.
    static let jpegWithMetadata: [UInt8] =
        Array(jpeg[..<jpegHeaderLength]) + exifWithGPS + xmp + iccProfile + photoshop + comment
        + Array(jpeg[jpegHeaderLength...])

    /// What stripping `jpegWithMetadata` must give: the original with only the ICC profile added back.
    static let jpegWithMetadataStripped: [UInt8] =
        Array(jpeg[..<jpegHeaderLength]) + iccProfile + Array(jpeg[jpegHeaderLength...])

    /// Bytes that are no image at all.
    static let notAnImage: [UInt8] = Array("%PDF-1.4\n%âãÏÓ\n1 0 obj << /Type /Catalog >> endobj\n".utf8)

    /// A JPEG-looking file of roughly `size` bytes (a valid header, then a long scan): for size limits.
    static func largeJPEG(size: Int) -> [UInt8] {
        let scanStart = jpeg.count - 2  // before EOI
        var bytes = Array(jpeg[..<scanStart])
        bytes.reserveCapacity(size)
        while bytes.count < size - 2 { bytes.append(UInt8(truncatingIfNeeded: bytes.count % 0xFF)) }  // never 0xFF
        return bytes + [0xFF, 0xD9]
    }

    /// A QuickTime video as an iPhone lays it out (`ftyp`, `mdat`, then `moov`) with its location written three ways:
    /// a `©xyz` user-data string, a 3GPP `loci` box, and the metadata item `com.apple.quicktime.location.ISO6709`
    /// (QuickTime `meta`: `hdlr` `mdta`, `keys`, `ilst`) beside a `com.apple.quicktime.make` item "Apple". Built box
    /// by box after Apple's QuickTime File Format; no decodable media (the scrubber never reads it).
    static let videoWithLocation: [UInt8] = {
        let position = Array("+37.5665+126.9780+012.345/".utf8)
        let xyz = box([0xA9, 0x78, 0x79, 0x7A], be16(position.count) + [0x15, 0xC7] + position)
        let loci = box(
            "loci",
            [0, 0, 0, 0] + [0x15, 0xC7] + Array("Seoul City Hall".utf8) + [0, 0] + be32(0x007E_F9F6) + be32(0x0025_9110)
                + be32(0) + Array("Earth".utf8) + [0, 0])
        let hdlr = box("hdlr", [UInt8](repeating: 0, count: 8) + Array("mdta".utf8) + [UInt8](repeating: 0, count: 13))
        let names = ["com.apple.quicktime.make", "com.apple.quicktime.location.ISO6709"]
        let keys = box("keys", [0, 0, 0, 0] + be32(names.count) + names.flatMap { box("mdta", Array($0.utf8)) })
        let ilst = box(
            "ilst",
            box(be32(1), box("data", be32(1) + be32(0) + Array("Apple".utf8)))
                + box(be32(2), box("data", be32(1) + be32(0) + position)))
        let moov = box(
            "moov",
            box("mvhd", [UInt8](repeating: 0, count: 100)) + box("udta", xyz + loci) + box("meta", hdlr + keys + ilst))
        return box("ftyp", Array("qt  ".utf8) + [0, 0, 2, 0] + Array("qt  ".utf8)) + box("mdat", Array("frames".utf8))
            + moov
    }()

    /// An MP4 as editing software leaves it: XMP with a GPS position in a top-level `uuid` box of XMP's UUID and in
    /// `moov/udta/XMP_`, beside a `uuid` box of another kind ("keep me") and the frames.
    static let videoWithXMP: [UInt8] = {
        let xmp = Array(
            "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:Description exif:GPSLatitude='37,33.99N'/></x:xmpmeta>".utf8)
        let xmpUUID: [UInt8] = [
            0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
        ]
        let other = [UInt8](repeating: 0x11, count: 16)
        return box("ftyp", Array("mp42".utf8) + [0, 0, 0, 0] + Array("isom".utf8)) + box("uuid", xmpUUID + xmp)
            + box("uuid", other + Array("keep me".utf8)) + box("mdat", Array("frames".utf8))
            + box("moov", box("mvhd", [UInt8](repeating: 0, count: 100)) + box("udta", box("XMP_", xmp)))
    }()

    /// A HEIF file whose only item is an EXIF item (id 1) with the given `iloc` box content, its bytes in `mdat`.
    static func heif(iloc: [UInt8]) -> [UInt8] {
        let infe = box("infe", [2, 0, 0, 0] + [0, 1, 0, 0] + Array("Exif".utf8) + [0])
        let iinf = box("iinf", [0, 0, 0, 0] + [0, 1] + infe)
        return box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
            + box(
                "meta",
                [0, 0, 0, 0]
                    + box(
                        "hdlr",
                        [UInt8](repeating: 0, count: 8) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
                    + iinf + box("iloc", iloc))
            + box("mdat", Array("Exif GPS".utf8))
    }

    static func box(_ type: String, _ content: [UInt8]) -> [UInt8] { box(Array(type.utf8), content) }
    static func box(_ type: [UInt8], _ content: [UInt8]) -> [UInt8] { be32(8 + content.count) + type + content }
    static func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    static func be16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    // MARK: PNG and WebP with metadata (decision 0047)

    /// One PNG chunk: big-endian length, type, data, CRC-32 of type and data (media's own CRC, which
    /// `ExifOrientationTests` checks against zlib's).
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        be32(data.count) + Array(type.utf8) + data + be32(Int(PNGMetadataStripper.crc32(Array(type.utf8) + data)))
    }

    /// Bytes of `png` up to and including its IHDR chunk: metadata chunks are inserted after this.
    static let pngHeaderLength = 33

    /// `png` with Exif (a GPS tag's worth of text), a comment, compressed text, XMP, C2PA and Apple's `iDOT`
    /// inserted after IHDR, and a line break after IEND: stripped, it is `png` again.
    static let pngWithMetadata: [UInt8] =
        Array(png[..<pngHeaderLength])
        + pngChunk("eXIf", Array("MM\u{0}*GPSLatitude 37.5665".utf8))
        + pngChunk("tEXt", Array("Comment\u{0}taken at home".utf8))
        + pngChunk("zTXt", Array("Author\u{0}\u{0}".utf8) + [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        + pngChunk("iTXt", Array("XML:com.adobe.xmp\u{0}\u{0}\u{0}\u{0}\u{0}<x:xmpmeta exif:GPSLatitude=\"37\"/>".utf8))
        + pngChunk("caBX", Array("jumb c2pa GPSLatitude".utf8))
        + pngChunk("iDOT", be32(2) + be32(0) + be32(1) + be32(40))
        + Array(png[pngHeaderLength...]) + [13, 10]

    /// One RIFF chunk: FourCC, little-endian size, payload, a pad byte after an odd size.
    static func riffChunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        Array(type.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// A WebP file of these chunks.
    static func webpFile(_ chunks: [UInt8]) -> [UInt8] {
        Array("RIFF".utf8) + le32(4 + chunks.count) + Array("WEBP".utf8) + chunks
    }

    /// `webp`'s image in the extended format: `VP8X` with `flags` (1×1 canvas), then its `VP8L` chunk.
    static func extendedWebP(flags: UInt8, after image: [UInt8] = []) -> [UInt8] {
        webpFile(riffChunk("VP8X", [flags, 0, 0, 0, 0, 0, 0, 0, 0, 0]) + Array(webp[12...]) + image)
    }

    /// `extendedWebP` with its EXIF and XMP flags set, an odd-sized `EXIF` chunk, an `XMP ` chunk and a `C2PA` chunk,
    /// and bytes after the container: stripped, it is `extendedWebP(flags: 0)`.
    static let webpWithMetadata: [UInt8] =
        extendedWebP(
            flags: 0x08 | 0x04,
            after: riffChunk("EXIF", Array("MM\u{0}*GPSLatitude 37.5665".utf8))
                + riffChunk("XMP ", Array("<x:xmpmeta exif:GPSLatitude=\"37\"/>".utf8))
                + riffChunk("C2PA", Array("jumb c2pa".utf8))) + [13, 10]

    /// The `ETag` media serves for a stored file of these bytes: their SHA-256 in hex, quoted.
    static func etag(_ bytes: [UInt8]) -> String {
        "\"" + SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// A HEIF photo with EXIF and XMP items (`TestImages.heic`, shared with the end-to-end tests).
    static let heicWithMetadata: [UInt8] = TestImages.heic

    /// Where `heicWithMetadata` keeps its EXIF and XMP items' bytes.
    static let heicMetadataRanges: [Range<Int>] = [659..<817, 817..<1130]
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in these bytes.
    func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { start in self[start..<start + needle.count].elementsEqual(needle)
        }
    }

}
