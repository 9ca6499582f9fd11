/// Removes the location and camera metadata of a HEIF photo (iPhone's HEIC) the way `JPEGMetadataStripper` does for
/// JPEGs. In HEIF, EXIF (GPS position, camera, times) and XMP are *items* of the file's `meta` box: `iinf` names each
/// item's type (`Exif`, or `mime` with `application/rdf+xml` for XMP), and `iloc` says where its bytes are (in the
/// file, usually in `mdat`, or in the `meta` box's `idat`). Their bytes are overwritten with zeros in place, so every
/// offset and size in the file stays valid and the image itself is untouched (HEIF rotates and mirrors with item
/// properties, never with EXIF's orientation). A zeroed EXIF item no longer starts with a TIFF header, so readers skip
/// it as they skip any unreadable metadata.
///
/// ISO/IEC 14496-12 (boxes, `meta`, `iinf`, `infe`, `iloc`, `idat`) and 23008-12 (HEIF items).
package enum HEIFMetadataScrubber {
    package struct Malformed: Error, CustomStringConvertible {
        package let reason: String
        package var description: String { reason }
    }

    /// Zeroes every EXIF and XMP item of `bytes`; returns how many items it zeroed.
    package static func scrub(_ bytes: inout [UInt8]) throws -> Int {
        guard let meta = try boxes(in: bytes, from: 0, to: bytes.count).first(where: { $0.type == "meta" }) else {
            return 0  // no items, no metadata items
        }
        let (ranges, items) = try metadataRanges(bytes, meta: meta, fileSize: bytes.count)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for range in merged(ranges) { buffer[range].update(repeating: 0) }
        }
        return items
    }

    /// Where the EXIF and XMP items' bytes are, and how many such items there are. `bytes` holds the file from its
    /// start at least to the end of `meta`, its first top-level `meta` box; the file has `fileSize` bytes.
    static func metadataRanges(_ bytes: [UInt8], meta: Box, fileSize: Int) throws -> (ranges: [Range<Int>], items: Int)
    {
        // `meta` is a full box: four bytes of version and flags before its children.
        let children = try boxes(in: bytes, from: meta.contentStart + 4, to: meta.end)
        guard let iinf = children.first(where: { $0.type == "iinf" }) else { return ([], 0) }
        let sensitive = try sensitiveItems(bytes, iinf: iinf)
        guard !sensitive.isEmpty else { return ([], 0) }
        guard let iloc = children.first(where: { $0.type == "iloc" }) else {
            throw Malformed(reason: "metadata items without an item location box")
        }
        let idat = children.first(where: { $0.type == "idat" })
        var zeroed = 0
        var ranges: [Range<Int>] = []
        for location in try locations(bytes, iloc: iloc, of: sensitive) {
            let (start, end): (Int, Int)
            switch location.constructionMethod {
            case 0:
                guard location.dataReferenceIndex == 0 else {
                    throw Malformed(reason: "a metadata item stored in another file")
                }
                (start, end) = (0, fileSize)
            case 1:
                guard let idat else { throw Malformed(reason: "a metadata item in an item data box that is absent") }
                (start, end) = (idat.contentStart, idat.end)
            default:
                throw Malformed(reason: "a metadata item built from other items")
            }
            for extent in location.extents {
                let from = start + location.baseOffset + extent.offset
                // A length of 0 means "to the end of the data".
                let to = extent.length == 0 ? end : from + extent.length
                guard from >= start, from <= to, to <= end else {
                    throw Malformed(reason: "a metadata item's bytes lie outside the file")
                }
                ranges.append(from..<to)
            }
            zeroed += 1
        }
        return (ranges, zeroed)
    }

    /// At most this many extents of metadata items in one file (a real one has one or two per item): a file that
    /// claims more is refused rather than walked.
    static let maxExtents = 4096

    /// The ranges sorted and merged, so that each byte is zeroed once however they overlap (a hostile file could
    /// repeat one range).
    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var merged: [Range<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    // MARK: Boxes

    struct Box {
        var type: String
        var start: Int
        var contentStart: Int
        var end: Int
    }

    /// The boxes that follow each other in `bytes[from..<to]`.
    static func boxes(in bytes: [UInt8], from: Int, to: Int) throws -> [Box] {
        var result: [Box] = []
        var position = from
        while position < to {
            let box = try box(in: bytes, at: position, to: to)
            result.append(box)
            position = box.end
        }
        return result
    }

    /// The box at `position`, which must end by `to`; with `clampedToParent`, a box that claims more than is left is
    /// taken to end at `to` instead (a cut file).
    static func box(in bytes: [UInt8], at position: Int, to: Int, clampedToParent: Bool = false) throws -> Box {
        guard to - position >= 8 else { throw Malformed(reason: "a box header is cut short") }
        var size = Int(read(bytes, position, 4))
        let type = String(decoding: bytes[position + 4..<position + 8], as: UTF8.self)
        var header = 8
        if size == 1 {
            guard to - position >= 16 else { throw Malformed(reason: "a box header is cut short") }
            size = Int(clamping: read(bytes, position + 8, 8))
            header = 16
        } else if size == 0 {
            size = to - position  // to the end of the enclosing data
        }
        guard size >= header else { throw Malformed(reason: "the box '\(type)' is smaller than its header") }
        guard size <= to - position else {
            guard clampedToParent else { throw Malformed(reason: "the box '\(type)' does not fit in its parent") }
            return Box(type: type, start: position, contentStart: position + header, end: to)
        }
        return Box(type: type, start: position, contentStart: position + header, end: position + size)
    }

    // MARK: Items

    /// The ids of the EXIF and XMP items named in `iinf`.
    static func sensitiveItems(_ bytes: [UInt8], iinf: Box) throws -> Set<UInt32> {
        var cursor = Cursor(bytes: bytes, position: iinf.contentStart, end: iinf.end)
        let version = try cursor.byte()
        try cursor.skip(3)
        _ = try cursor.integer(version == 0 ? 2 : 4)  // entry count: the boxes that follow say it too
        var items: Set<UInt32> = []
        for entry in try boxes(in: bytes, from: cursor.position, to: iinf.end) where entry.type == "infe" {
            var infe = Cursor(bytes: bytes, position: entry.contentStart, end: entry.end)
            let entryVersion = try infe.byte()
            try infe.skip(3)
            if entryVersion >= 2 {
                let itemId = UInt32(try infe.integer(entryVersion == 2 ? 2 : 4))
                try infe.skip(2)  // protection index
                let itemType = try infe.fourCC()
                _ = try infe.string()  // name
                if itemType == "Exif" {
                    items.insert(itemId)
                } else if itemType == "mime", Self.isXMP(try infe.string()) {
                    items.insert(itemId)
                }
            } else {
                // Versions 0 and 1 type every item by its MIME content type.
                let itemId = UInt32(try infe.integer(2))
                try infe.skip(2)
                _ = try infe.string()
                if Self.isXMP(try infe.string()) { items.insert(itemId) }
            }
        }
        return items
    }

    static func isXMP(_ contentType: String) -> Bool {
        contentType.lowercased().hasPrefix("application/rdf+xml")
    }

    struct Location {
        var itemId: UInt32
        var constructionMethod: Int
        var dataReferenceIndex: Int
        var baseOffset: Int
        var extents: [(offset: Int, length: Int)]
    }

    /// The locations of the items `wanted` from `iloc` (versions 0, 1 and 2). The other items' extents are skipped
    /// without being read (an extent may take no bytes at all when every field size is 0).
    static func locations(_ bytes: [UInt8], iloc: Box, of wanted: Set<UInt32>) throws -> [Location] {
        var cursor = Cursor(bytes: bytes, position: iloc.contentStart, end: iloc.end)
        let version = try cursor.byte()
        guard version <= 2 else { throw Malformed(reason: "an item location box of version \(version)") }
        try cursor.skip(3)
        let sizes = try cursor.byte()
        let more = try cursor.byte()
        let (offsetSize, lengthSize) = (Int(sizes >> 4), Int(sizes & 0x0F))
        let baseOffsetSize = Int(more >> 4)
        let indexSize = version >= 1 ? Int(more & 0x0F) : 0
        for size in [offsetSize, lengthSize, baseOffsetSize, indexSize] where ![0, 4, 8].contains(size) {
            throw Malformed(reason: "an item location field of \(size) bytes")
        }
        let count = try cursor.integer(version < 2 ? 2 : 4)
        var result: [Location] = []
        var extentsSeen = 0
        for _ in 0..<count {
            let itemId = UInt32(try cursor.integer(version < 2 ? 2 : 4))
            let method = version >= 1 ? Int(try cursor.integer(2) & 0x0F) : 0
            let reference = Int(try cursor.integer(2))
            let base = try cursor.offset(baseOffsetSize)
            let extentCount = Int(try cursor.integer(2))
            guard wanted.contains(itemId) else {
                try cursor.skip(extentCount * (indexSize + offsetSize + lengthSize))
                continue
            }
            extentsSeen += extentCount
            guard extentsSeen <= maxExtents else {
                throw Malformed(reason: "more than \(maxExtents) extents of metadata items")
            }
            var extents: [(offset: Int, length: Int)] = []
            for _ in 0..<extentCount {
                try cursor.skip(indexSize)
                extents.append((try cursor.offset(offsetSize), try cursor.offset(lengthSize)))
            }
            result.append(
                Location(
                    itemId: itemId, constructionMethod: method, dataReferenceIndex: reference, baseOffset: base,
                    extents: extents))
        }
        return result
    }

    // MARK: Reading

    static func read(_ bytes: [UInt8], _ position: Int, _ count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in position..<position + count { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    /// Big-endian fields of one box's content, never past its end.
    struct Cursor {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        mutating func skip(_ count: Int) throws {
            guard end - position >= count else { throw Malformed(reason: "a box's fields are cut short") }
            position += count
        }

        mutating func byte() throws -> UInt8 {
            try skip(1)
            return bytes[position - 1]
        }

        mutating func integer(_ count: Int) throws -> UInt64 {
            try skip(count)
            return HEIFMetadataScrubber.read(bytes, position - count, count)
        }

        /// An offset or a length: it must fit in an `Int` (any real one does; it is checked against the file later).
        mutating func offset(_ count: Int) throws -> Int {
            let value = try integer(count)
            guard value <= UInt64(Int32.max) else { throw Malformed(reason: "an item location beyond the file") }
            return Int(value)
        }

        mutating func fourCC() throws -> String {
            try skip(4)
            return String(decoding: bytes[position - 4..<position], as: UTF8.self)
        }

        /// A NUL-terminated UTF-8 string; a missing terminator ends it at the box's end.
        mutating func string() throws -> String {
            var terminator = position
            while terminator < end, bytes[terminator] != 0 { terminator += 1 }
            let value = String(decoding: bytes[position..<terminator], as: UTF8.self)
            position = min(terminator + 1, end)
            return value
        }
    }
}
