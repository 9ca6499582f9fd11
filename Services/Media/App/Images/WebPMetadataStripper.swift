/// Removes the chunks of a WebP that can say where, when and by whom a picture was made (decision 0047): `EXIF`
/// (with GPS), `XMP ` (which may carry a location) and `C2PA` (provenance, which can name the creator and hold an
/// Exif assertion with a position). An `EXIF` chunk's orientation is kept: in its place goes a new `EXIF` chunk
/// holding that one field (`ExifOrientation`, decision 0048). Every other chunk (`VP8 `, `VP8L`, `VP8X`, `ALPH`, `ICCP`,
/// `ANIM`, `ANMF` …) is copied byte for byte, so the picture is unchanged. Bytes after the RIFF container's end are
/// dropped.
///
/// Dropping chunks shortens the container, so the RIFF header's size and the `VP8X` header's EXIF and XMP flags
/// must change too; they precede the dropped bytes, so `finish` returns them as patches (an offset in the output and
/// the bytes to write there), which the caller writes over what it already stored (`strip` applies them itself).
///
/// The structure is checked on the way: `RIFF`, a size, `WEBP`, then chunk headers of four printable characters whose
/// sizes (plus the pad byte after an odd one) stay inside the container, and the container complete. A file that fails is `Malformed` (the
/// upload answers 400), never stored with its metadata. It works on the file as it streams in (`feed`, then
/// `finish`), holding at most a chunk header and the first 64 KiB of an `EXIF` chunk.
package struct WebPMetadataStripper: StreamingMetadataFilter {
    package struct Malformed: Error, CustomStringConvertible, Equatable {
        package let reason: String
        package init(reason: String) { self.reason = reason }
        package var description: String { "malformed WebP: \(reason)" }
    }

    /// Chunks dropped: Exif, XMP, C2PA.
    static let removed: Set<String> = ["EXIF", "XMP ", "C2PA"]
    /// `VP8X` flags of the chunks dropped (libwebp's `EXIF_FLAG` and `XMP_FLAG`).
    static let exifFlag: UInt8 = 0x08
    static let xmpFlag: UInt8 = 0x04

    private enum State {
        /// The 12-byte file header (`RIFF`, size, `WEBP`).
        case fileHeader
        /// A chunk's FourCC and size (8 bytes), starting at `at`.
        case chunkHeader(at: Int)
        /// A chunk's payload and pad byte: `remaining` bytes, copied or dropped.
        case body(type: String, at: Int, remaining: Int, kept: Bool)
        /// An `EXIF` chunk's payload and pad byte, `remaining` bytes still to come: the payload collected in `exif` for
        /// its orientation (up to `ExifOrientation.readLimit`), the rest dropped.
        case exif(at: Int, remaining: Int)
        /// After the container's end: everything else is dropped.
        case done
    }

    private var state = State.fileHeader
    private var header: [UInt8] = []
    /// Bytes fed so far, and output so far.
    private var position = 0
    private var written = 0
    /// Where the container ends: 8 + the RIFF size.
    private var end = 0
    private var chunks = 0
    /// The output offset of the `VP8X` flags byte, and the flags, when the first chunk is `VP8X`.
    private var flags: (offset: Int, value: UInt8)?
    /// Chunks dropped (or replaced by an orientation) so far.
    private var removedChunks = 0
    /// The `EXIF` payload being collected, its size in the file, and whether an orientation was written.
    private var exif: [UInt8] = []
    private var exifSize = 0
    private var wroteOrientation = false

    package init() {}

    /// Takes the next bytes of the file and appends what is kept of them to `output`.
    package mutating func feed(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) throws {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            switch state {
            case .fileHeader, .chunkHeader:
                let wanted = if case .fileHeader = state { 12 } else { 8 }
                let take = min(wanted - header.count, bytes.distance(from: index, to: bytes.endIndex))
                let end = bytes.index(index, offsetBy: take)
                header.append(contentsOf: bytes[index..<end])
                position += take
                index = end
                guard header.count == wanted else { continue }
                if case .chunkHeader(let at) = state {
                    try beginChunk(at: at, into: &output)
                } else {
                    try beginFile(into: &output)
                }
            case .body(let type, let at, let remaining, let kept):
                let take = min(remaining, bytes.distance(from: index, to: bytes.endIndex))
                let end = bytes.index(index, offsetBy: take)
                if kept {
                    if type == "VP8X", chunks == 1, flags == nil, take > 0 {
                        flags = (written, bytes[index])  // the payload's first byte
                    }
                    output.append(contentsOf: bytes[index..<end])
                    written += take
                }
                position += take
                index = end
                if take < remaining {
                    state = .body(type: type, at: at, remaining: remaining - take, kept: kept)
                } else {
                    state = position == self.end ? .done : .chunkHeader(at: position)
                }
            case .exif(let at, let remaining):
                let take = min(remaining, bytes.distance(from: index, to: bytes.endIndex))
                let end = bytes.index(index, offsetBy: take)
                ExifOrientation.collect(bytes[index..<end], into: &exif, blockLength: exifSize)
                position += take
                index = end
                if take < remaining {
                    state = .exif(at: at, remaining: remaining - take)
                } else {
                    writeOrientation(into: &output)
                    state = position == self.end ? .done : .chunkHeader(at: position)
                }
            case .done:
                position += bytes.distance(from: index, to: bytes.endIndex)
                return
            }
        }
    }

    /// The file has ended: throws unless the container was complete; returns the header patches the dropped chunks
    /// call for (none when nothing was dropped).
    package func finish() throws -> [MetadataPatch] {
        switch state {
        case .done: break
        case .fileHeader: throw Malformed(reason: "truncated RIFF header")
        case .chunkHeader:
            throw Malformed(reason: "the file ends at byte \(position), inside a RIFF container of \(end) bytes")
        case .body(let type, let at, _, _): throw Malformed(reason: "chunk \(type) at byte \(at) runs past the end")
        case .exif(let at, _): throw Malformed(reason: "chunk EXIF at byte \(at) runs past the end")
        }
        guard removedChunks > 0 else { return [] }
        let size = UInt32(written - 8)
        var patches = [MetadataPatch(offset: 4, bytes: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: size >> $0) })]
        let cleared = wroteOrientation ? Self.xmpFlag : Self.exifFlag | Self.xmpFlag
        if let flags, flags.value & cleared != 0 {
            patches.append(MetadataPatch(offset: flags.offset, bytes: [flags.value & ~cleared]))
        }
        return patches
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    private mutating func beginFile(into output: inout [UInt8]) throws {
        guard header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("WEBP".utf8) else {
            throw Malformed(reason: "not a RIFF WEBP header")
        }
        let size = Self.littleEndian(header[4..<8])
        guard size >= 4 + 8 else { throw Malformed(reason: "a RIFF container of \(size) bytes holds no chunk") }
        end = 8 + size
        output.append(contentsOf: header)
        written += header.count
        header.removeAll(keepingCapacity: true)
        state = .chunkHeader(at: position)
    }

    /// A chunk's 8-byte header has been read (it started at `at`).
    private mutating func beginChunk(at: Int, into output: inout [UInt8]) throws {
        guard header[0..<4].allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw Malformed(reason: "chunk type is not four printable characters at byte \(at)")
        }
        let type = String(decoding: header[0..<4], as: UTF8.self)
        let size = Self.littleEndian(header[4..<8])
        let padded = size + (size & 1)
        guard at + 8 + padded <= end else {
            throw Malformed(reason: "chunk \(type) at byte \(at) runs past the RIFF container's end")
        }
        chunks += 1
        let kept = !Self.removed.contains(type)
        if kept {
            output.append(contentsOf: header)
            written += header.count
        } else {
            removedChunks += 1
        }
        header.removeAll(keepingCapacity: true)
        if type == "EXIF", !wroteOrientation, padded > 0 {
            exifSize = size
            state = .exif(at: at, remaining: padded)
        } else if padded == 0 {
            state = at + 8 == end ? .done : .chunkHeader(at: at + 8)
        } else {
            state = .body(type: type, at: at, remaining: padded, kept: kept)
        }
    }

    /// An `EXIF` chunk has been read: its orientation, if it has one, is written as an `EXIF` chunk of its own.
    private mutating func writeOrientation(into output: inout [UInt8]) {
        defer { exif.removeAll(keepingCapacity: true) }
        guard let orientation = ExifOrientation.orientation(inExif: exif[...]) else { return }
        let tiff = ExifOrientation.tiff(orientation: orientation)  // an even size: no pad byte
        let chunk = Array("EXIF".utf8) + [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: tiff.count >> $0) } + tiff
        output.append(contentsOf: chunk)
        written += chunk.count
        wroteOrientation = true
    }
}
