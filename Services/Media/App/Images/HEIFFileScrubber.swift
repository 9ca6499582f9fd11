import SNSPlatform

/// `HEIFMetadataScrubber` over a file on disk (decision 0046): the top-level boxes are walked by their headers (as
/// strictly as in memory: boxes must add up to the file), the file is read from its start to the end of its `meta`
/// box (an iPhone's photo puts it right after `ftyp`, before the image data), and the EXIF and XMP items' bytes are
/// overwritten with zeros in place, in the file. A file with more than `maxTopLevelBoxes` top-level boxes is refused
/// (a real one has three or four).
enum HEIFFileScrubber {
    static let maxTopLevelBoxes = 1024
    /// Zeros are written at most this many at a time.
    static let zeroChunk = 64 * 1024

    /// Zeroes the EXIF and XMP items of `file`, of `size` bytes; returns how many items it zeroed. A structure that
    /// does not add up is `HEIFMetadataScrubber.Malformed`, as in memory.
    static func scrub(_ file: FileDescriptor, size: Int) async throws -> Int {
        typealias Scrubber = HEIFMetadataScrubber
        var position = 0
        var walked = 0
        var meta: Scrubber.Box?
        while position < size {
            walked += 1
            guard walked <= maxTopLevelBoxes else {
                throw Scrubber.Malformed(reason: "more than \(maxTopLevelBoxes) top-level boxes")
            }
            let remaining = size - position
            let header = Array(buffer: try await file.read(at: position, length: min(16, remaining)))
            let box = try Scrubber.box(in: header, at: 0, to: remaining)
            if meta == nil, box.type == "meta" {
                meta = Scrubber.Box(
                    type: box.type, start: position, contentStart: position + box.contentStart, end: position + box.end)
            }
            position += box.end
        }
        guard let meta else { return 0 }
        let head = Array(buffer: try await file.read(at: 0, length: meta.end))
        // Off the event loop: a hostile `iloc` can take milliseconds to walk.
        let (ranges, items) = try await runBlocking { try Scrubber.metadataRanges(head, meta: meta, fileSize: size) }
        for range in Scrubber.merged(ranges) {
            var offset = range.lowerBound
            while offset < range.upperBound {
                let count = min(zeroChunk, range.upperBound - offset)
                try await file.write([UInt8](repeating: 0, count: count), at: offset)
                offset += count
            }
        }
        return items
    }
}
