import SNSPlatform

/// `VideoLocationScrubber` over a file on disk (decision 0046). Videos and voice memos may be larger than photos, so
/// they are not read whole: the top-level boxes are walked by their headers, and only those that can hold a location
/// (`moov`, `udta`, `trak`, `meta`, `loci`, `©xyz`: kilobytes, at most a few megabytes in a real video; never `mdat`)
/// are read, scrubbed in memory exactly as the whole-file walk would, and written back in place when something was
/// zeroed. The rules are the in-memory walk's: a box that claims more than the file holds ends with the file, the walk
/// stops at bytes that are no box, and also after `maxTopLevelBoxes` boxes (real files have four to six; only a file
/// made to hide its own location from the walk has more).
enum VideoFileScrubber {
    static let maxTopLevelBoxes = 1024

    /// Zeroes the location values in `file`, of `size` bytes; returns how many it zeroed.
    static func scrub(_ file: FileDescriptor, size: Int) async throws -> Int {
        var position = 0
        var zeroed = 0
        var walked = 0
        while position < size, walked < maxTopLevelBoxes {
            walked += 1
            let remaining = size - position
            let header = Array(buffer: try await file.read(at: position, length: min(16, remaining)))
            guard
                let box = try? HEIFMetadataScrubber.box(in: header, at: 0, to: remaining, clampedToParent: true)
            else { break }
            if VideoLocationScrubber.mayHoldLocation(header) {
                let read = Array(buffer: try await file.read(at: position, length: box.end))
                let (bytes, count) = try await runBlocking {  // off the event loop: a `moov` may be megabytes
                    var bytes = read
                    let count = VideoLocationScrubber.scrub(&bytes)
                    return (bytes, count)
                }
                if count > 0 {
                    try await file.write(bytes, at: position)
                    zeroed += count
                }
            }
            position += box.end
        }
        return zeroed
    }
}
