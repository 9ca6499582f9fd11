/// Removes the metadata segments of a JPEG that can say where and by whom a photo was taken, so users'
/// GPS positions never leak through a shared image:
///
/// - `APP1` (Exif, with GPS, camera serial numbers and thumbnails; also XMP and extended XMP),
/// - `APP13` (IPTC / Photoshop resources: names, captions, locations),
/// - `COM` (free-text comments).
///
/// An Exif segment's orientation is kept: in its place goes a new Exif segment holding that one field
/// (`ExifOrientation`, decision 0048), so a portrait photo still shows upright.
///
/// Everything else is copied byte for byte: `APP0` (JFIF), `APP2` (ICC colour profile), the other APPn, `DQT`,
/// `SOFn`, `DHT`, `DRI`, `SOS` headers and the entropy-coded scan data, so the picture itself is unchanged.
/// Bytes after `EOI` are dropped (some cameras append a second image there, with its own Exif).
///
/// The segment structure is checked on the way: `SOI` first, well-formed markers, lengths inside the file,
/// a frame header before the first scan, and an `EOI` at the end. A file that fails is `Malformed` (the
/// upload answers 400), never passed through unstripped.
///
/// It works on the file as it streams in (`feed`, then `finish`), holding no more than a segment header and an Exif
/// segment (at most 64 KiB): an upload is stripped on its way to disk, never read whole (decision 0046). `strip` does
/// the same for bytes in memory.
package struct JPEGMetadataStripper: StreamingMetadataFilter {
    package struct Malformed: Error, CustomStringConvertible, Equatable {
        package let reason: String
        package var description: String { "malformed JPEG: \(reason)" }
    }

    static let soi: UInt8 = 0xD8
    static let eoi: UInt8 = 0xD9
    static let sos: UInt8 = 0xDA
    /// Segments dropped: APP1 (Exif, XMP), APP13 (IPTC/Photoshop), COM.
    static let removed: Set<UInt8> = [0xE1, 0xED, 0xFE]
    /// Start-of-frame markers (SOF0–SOF15 except DHT C4, JPG C8 and DAC CC).
    static let frames: Set<UInt8> = [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF]

    private enum State {
        /// The first two bytes, `FF D8`.
        case start
        /// A marker's `0xFF` is due.
        case marker
        /// Inside a marker: `0xFF` fill bytes, then the marker code.
        case fill
        /// A segment's two length bytes (`first` once one has come); the length starts at `at`.
        case length(marker: UInt8, at: Int, first: UInt8?)
        /// A segment's body: `remaining` bytes, copied or dropped.
        case segment(marker: UInt8, at: Int, remaining: Int, kept: Bool)
        /// An `APP1` body that may be Exif, collected in `exif` for its orientation: `remaining` bytes still to come.
        case app1(at: Int, remaining: Int)
        /// Entropy-coded data; `pendingFF` when the last byte seen was a `0xFF` whose meaning the next byte decides.
        case scan(pendingFF: Bool)
        /// After `EOI`: everything else is dropped.
        case done
    }

    private var state = State.start
    /// Bytes fed so far.
    private var position = 0
    private var sawFrame = false
    /// The `APP1` body being collected, and whether an orientation was written (one is enough).
    private var exif: [UInt8] = []
    private var wroteOrientation = false

    package init() {}

    /// Takes the next bytes of the file and appends what is kept of them to `output`.
    package mutating func feed(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) throws {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            switch state {
            case .segment(let marker, let at, let remaining, let kept):
                // Copy or skip a run at once: the bulk of a file is in segments and scans.
                let available = bytes.distance(from: index, to: bytes.endIndex)
                let take = min(remaining, available)
                let end = bytes.index(index, offsetBy: take)
                if kept { output.append(contentsOf: bytes[index..<end]) }
                position += take
                index = end
                if take == remaining {
                    try endSegment(marker)
                } else {
                    state = .segment(marker: marker, at: at, remaining: remaining - take, kept: kept)
                }
            case .app1(let at, let remaining):
                let take = min(remaining, bytes.distance(from: index, to: bytes.endIndex))
                let end = bytes.index(index, offsetBy: take)
                exif.append(contentsOf: bytes[index..<end])
                position += take
                index = end
                try collectedExif(at: at, remaining: remaining - take, into: &output)
            case .scan(pendingFF: false):
                // Copy up to the next 0xFF in one go.
                let end = bytes[index...].firstIndex(of: 0xFF) ?? bytes.endIndex
                output.append(contentsOf: bytes[index..<end])
                position += bytes.distance(from: index, to: end)
                index = end
                if index != bytes.endIndex {
                    state = .scan(pendingFF: true)
                    position += 1
                    index = bytes.index(after: index)
                }
            default:
                try step(bytes[index], into: &output)
                position += 1
                index = bytes.index(after: index)
            }
        }
    }

    /// The file has ended: throws unless it ended with `EOI` (bytes after it are dropped); nothing to patch.
    @discardableResult
    package func finish() throws -> [MetadataPatch] {
        if position < 4, !isDone { throw Malformed(reason: "does not start with SOI") }
        switch state {
        case .done: return []
        case .start: throw Malformed(reason: "does not start with SOI")
        case .marker: throw Malformed(reason: "expected a marker at byte \(position)")
        case .fill: throw Malformed(reason: "truncated marker at the end")
        case .length(_, let at, _): throw Malformed(reason: "truncated segment length at byte \(at)")
        case .segment(let marker, let at, _, _): throw Self.runsPastTheEnd(marker, at: at)
        case .app1(let at, _): throw Self.runsPastTheEnd(0xE1, at: at)
        case .scan: throw Malformed(reason: "scan data not terminated (no EOI)")
        }
    }

    private var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// One byte outside segment bodies and plain scan data; `position` is its offset.
    private mutating func step(_ byte: UInt8, into output: inout [UInt8]) throws {
        switch state {
        case .start:
            if position == 0, byte == 0xFF { return }
            guard position == 1, byte == Self.soi else { throw Malformed(reason: "does not start with SOI") }
            output.append(contentsOf: [0xFF, Self.soi])
            state = .marker
        case .marker:
            guard byte == 0xFF else { throw Malformed(reason: "expected a marker at byte \(position)") }
            state = .fill
        case .fill:
            if byte != 0xFF { try beginMarker(byte, into: &output) }
        case .length(let marker, let at, let first):
            guard let first else {
                state = .length(marker: marker, at: at, first: byte)
                return
            }
            let length = Int(first) << 8 | Int(byte)
            guard length >= 2 else { throw Self.runsPastTheEnd(marker, at: at) }
            let kept = !Self.removed.contains(marker)
            if kept { output.append(contentsOf: [0xFF, marker, first, byte]) }
            if length == 2 {
                try endSegment(marker)
            } else if marker == 0xE1, !wroteOrientation {
                state = .app1(at: at, remaining: length - 2)
            } else {
                state = .segment(marker: marker, at: at, remaining: length - 2, kept: kept)
            }
        case .scan(pendingFF: true):
            if byte == 0x00 || (0xD0...0xD7).contains(byte) {
                output.append(contentsOf: [0xFF, byte])  // a stuffed 0xFF or a restart marker: still scan data
                state = .scan(pendingFF: false)
            } else if byte == 0xFF {
                state = .fill  // the scan ended; fill bytes before the next marker
            } else {
                try beginMarker(byte, into: &output)
            }
        case .done:
            return
        case .segment, .app1, .scan(pendingFF: false):
            preconditionFailure("handled in feed")
        }
    }

    /// A marker code has been read (at `position`).
    private mutating func beginMarker(_ marker: UInt8, into output: inout [UInt8]) throws {
        switch marker {
        case Self.eoi:
            guard sawFrame else { throw Malformed(reason: "no image data before EOI") }
            output.append(contentsOf: [0xFF, Self.eoi])
            state = .done
        case Self.soi, 0x00:
            throw Malformed(reason: "unexpected marker 0x\(String(marker, radix: 16)) at byte \(position)")
        case 0x01, 0xD0...0xD7:
            // TEM and RSTn stand alone (no length).
            output.append(contentsOf: [0xFF, marker])
            state = .marker
        default:
            state = .length(marker: marker, at: position + 1, first: nil)
        }
    }

    /// More of an `APP1` body has been collected, `remaining` bytes of it still to come. Once it cannot be Exif it is
    /// dropped as it comes; complete, an Exif body's orientation is written as a segment of its own.
    private mutating func collectedExif(at: Int, remaining: Int, into output: inout [UInt8]) throws {
        let identifier = ExifOrientation.identifier
        let mayBeExif = exif.count < identifier.count ? identifier.starts(with: exif) : exif.starts(with: identifier)
        if !mayBeExif {
            exif.removeAll(keepingCapacity: true)
            if remaining == 0 {
                try endSegment(0xE1)
            } else {
                state = .segment(marker: 0xE1, at: at, remaining: remaining, kept: false)
            }
        } else if remaining > 0 {
            state = .app1(at: at, remaining: remaining)
        } else {
            if let orientation = ExifOrientation.orientation(inExif: exif[...]) {
                let body = identifier + ExifOrientation.tiff(orientation: orientation)
                let length = body.count + 2
                output.append(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body)
                wroteOrientation = true
            }
            exif.removeAll(keepingCapacity: true)
            try endSegment(0xE1)
        }
    }

    /// A segment's last byte has been read.
    private mutating func endSegment(_ marker: UInt8) throws {
        if Self.frames.contains(marker) { sawFrame = true }
        if marker == Self.sos {
            guard sawFrame else { throw Malformed(reason: "scan before any frame header") }
            state = .scan(pendingFF: false)
        } else {
            state = .marker
        }
    }

    private static func runsPastTheEnd(_ marker: UInt8, at: Int) -> Malformed {
        Malformed(reason: "segment 0x\(String(marker, radix: 16)) at byte \(at - 2) runs past the end")
    }
}
