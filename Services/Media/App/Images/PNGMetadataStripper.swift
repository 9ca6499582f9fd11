/// Removes the chunks of a PNG that can say where, when and by whom a picture was made (decision 0047):
///
/// - `eXIf` (Exif, with GPS and camera serial numbers), and the older `exIf` and `zxIf` some tools still write,
/// - `tEXt`, `zTXt`, `iTXt` (text: comments, authors, and XMP, which is an `iTXt` and may carry a location),
/// - `caBX` (C2PA provenance, which can name the creator and hold an Exif assertion with a position),
/// - `iDOT` (Apple's hint for decoding in parallel: it points at the image data by offsets that the dropped chunks
///   would shift when they sit between the two; decoders do without it).
///
/// An `eXIf` chunk's orientation is kept: in its place goes a new `eXIf` chunk holding that one field
/// (`ExifOrientation`, decision 0048).
///
/// Every other chunk is copied byte for byte, its CRC included (`IHDR`, `PLTE`, `IDAT`, `IEND`, colour chunks,
/// an animated PNG's `acTL`/`fcTL`/`fdAT`, Apple's `CgBI` …), so the picture is unchanged and every chunk left is as
/// valid as it came. Bytes after `IEND` are dropped (a form that writes a line break after the file
/// left them there).
///
/// The structure is checked on the way: the signature, chunk headers with a length below 2³¹ and a type of four
/// letters, lengths inside the file, and `IEND` at the end. A file that fails is `Malformed` (the upload answers
/// 400), never stored with its metadata. CRCs are not checked: a chunk is kept or dropped whole.
///
/// It works on the file as it streams in (`feed`, then `finish`), holding at most a chunk header and the first 64 KiB
/// of an `eXIf` chunk.
package struct PNGMetadataStripper: StreamingMetadataFilter {
    package struct Malformed: Error, CustomStringConvertible, Equatable {
        package let reason: String
        package init(reason: String) { self.reason = reason }
        package var description: String { "malformed PNG: \(reason)" }
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Chunks dropped: Exif (and its two pre-standard forms), the three text chunks, C2PA, Apple's `iDOT`.
    static let removed: Set<String> = ["eXIf", "exIf", "zxIf", "tEXt", "zTXt", "iTXt", "caBX", "iDOT"]

    private enum State {
        /// The signature's bytes, `count` of them seen.
        case signature(count: Int)
        /// A chunk's length and type (8 bytes), starting at `at`.
        case header(at: Int)
        /// A chunk's data and CRC: `remaining` bytes, copied or dropped.
        case body(type: String, at: Int, remaining: Int, kept: Bool)
        /// An `eXIf` chunk's data and CRC, `remaining` bytes still to come: the data collected in `exif` for its
        /// orientation (up to `ExifOrientation.readLimit`), the rest dropped.
        case exif(at: Int, remaining: Int)
        /// After `IEND`: everything else is dropped.
        case done
    }

    private var state = State.signature(count: 0)
    private var header: [UInt8] = []
    /// Bytes fed so far.
    private var position = 0
    /// The `eXIf` data being collected, its length in the file, and whether an orientation was written (one is enough).
    private var exif: [UInt8] = []
    private var exifLength = 0
    private var wroteOrientation = false

    package init() {}

    /// Takes the next bytes of the file and appends what is kept of them to `output`.
    package mutating func feed(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) throws {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            switch state {
            case .signature(let count):
                guard bytes[index] == Self.signature[count] else { throw Malformed(reason: "not a PNG signature") }
                output.append(bytes[index])
                state = count + 1 == Self.signature.count ? .header(at: position + 1) : .signature(count: count + 1)
                position += 1
                index = bytes.index(after: index)
            case .header(let at):
                let take = min(8 - header.count, bytes.distance(from: index, to: bytes.endIndex))
                let end = bytes.index(index, offsetBy: take)
                header.append(contentsOf: bytes[index..<end])
                position += take
                index = end
                if header.count == 8 { try beginChunk(at: at, into: &output) }
            case .body(let type, let at, let remaining, let kept):
                // Copy or skip a run at once: the bulk of a file is in its IDAT chunks.
                let take = min(remaining, bytes.distance(from: index, to: bytes.endIndex))
                let end = bytes.index(index, offsetBy: take)
                if kept { output.append(contentsOf: bytes[index..<end]) }
                position += take
                index = end
                if take < remaining {
                    state = .body(type: type, at: at, remaining: remaining - take, kept: kept)
                } else {
                    state = type == "IEND" ? .done : .header(at: position)
                }
            case .exif(let at, let remaining):
                let take = min(remaining, bytes.distance(from: index, to: bytes.endIndex))
                let end = bytes.index(index, offsetBy: take)
                ExifOrientation.collect(bytes[index..<end], into: &exif, blockLength: exifLength)
                position += take
                index = end
                if take < remaining {
                    state = .exif(at: at, remaining: remaining - take)
                } else {
                    writeOrientation(into: &output)
                    state = .header(at: position)
                }
            case .done:
                position += bytes.distance(from: index, to: bytes.endIndex)
                return
            }
        }
    }

    /// The file has ended: throws unless it ended with `IEND` (bytes after it are dropped); nothing to patch.
    @discardableResult
    package func finish() throws -> [MetadataPatch] {
        switch state {
        case .done: return []
        case .signature: throw Malformed(reason: "not a PNG signature")
        case .header(let at):
            throw Malformed(reason: header.isEmpty ? "no IEND chunk" : "truncated chunk header at byte \(at)")
        case .body(let type, let at, _, _): throw Malformed(reason: "chunk \(type) at byte \(at) runs past the end")
        case .exif(let at, _): throw Malformed(reason: "chunk eXIf at byte \(at) runs past the end")
        }
    }

    /// A chunk's 8-byte header has been read (it started at `at`).
    private mutating func beginChunk(at: Int, into output: inout [UInt8]) throws {
        let length = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard length < 1 << 31 else { throw Malformed(reason: "chunk length over 2^31 at byte \(at)") }
        guard header[4..<8].allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
            throw Malformed(reason: "chunk type is not four letters at byte \(at + 4)")
        }
        let type = String(decoding: header[4..<8], as: UTF8.self)
        let kept = !Self.removed.contains(type)
        if kept { output.append(contentsOf: header) }
        header.removeAll(keepingCapacity: true)
        if type == "eXIf", !wroteOrientation {
            exifLength = length
            state = .exif(at: at, remaining: length + 4)
        } else {
            state = .body(type: type, at: at, remaining: length + 4, kept: kept)  // the data, then its CRC
        }
    }

    /// An `eXIf` chunk has been read: its orientation, if it has one, is written as an `eXIf` chunk of its own.
    private mutating func writeOrientation(into output: inout [UInt8]) {
        defer { exif.removeAll(keepingCapacity: true) }
        guard let orientation = ExifOrientation.orientation(inTIFF: exif[...]) else { return }
        let typeAndData = Array("eXIf".utf8) + ExifOrientation.tiff(orientation: orientation)
        output.append(
            contentsOf: Self.bigEndian(typeAndData.count - 4) + typeAndData + Self.bigEndian(Self.crc32(typeAndData)))
        wroteOrientation = true
    }

    private static func bigEndian(_ value: some FixedWidthInteger) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }

    /// CRC-32 as PNG computes it over a chunk's type and data (ISO 3309; a few dozen bytes here, so bit by bit).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }
}
