/// Removes where a video was shot from an MP4 or QuickTime file, in place: the bytes of every location value become
/// zeros, so every box size and offset stays valid and the media data is untouched. An iPhone writes the position
/// twice: as a QuickTime user-data string `©xyz` (`moov/udta`), and as the metadata item
/// `com.apple.quicktime.location.ISO6709` (with its accuracy and other `…location…` keys) in `moov/meta`, whose `keys`
/// box names the items and whose `ilst` holds their values. Other writers put `©xyz` in an `ilst` without `keys`
/// (iTunes-style `meta`), and 3GPP files may carry a `loci` box in `udta`. Editing software adds XMP (which may
/// hold `exif:GPSLatitude` and its kin) as a top-level `uuid` box of XMP's UUID or as `udta/XMP_`: the whole packet
/// goes, as a JPEG's or a HEIF photo's XMP does.
///
/// The other metadata (device make and model, software, creation date) is kept: it says nothing about where the user
/// was, and players show it. Video files were accepted as they came before this existed, so the walk never refuses a
/// file: a box that claims more than its parent holds is taken to end with its parent (a cut file), and the walk
/// stops at bytes that are no box at all, and below `maxDepth` containers (real files nest three or four deep; a
/// hostile one could nest thousands). ISO/IEC 14496-12 (boxes), Apple's QuickTime File Format (user data, metadata
/// `keys` and `ilst`), 3GPP TS 26.244 (`loci`), Adobe's XMP Specification Part 3 (`uuid`, `XMP_`).
package enum VideoLocationScrubber {
    typealias Box = HEIFMetadataScrubber.Box

    /// The containers that can lead to location metadata (`trak` may carry its own `udta` and `meta`).
    static let containers: Set<String> = ["moov", "trak", "udta"]
    /// How deep containers are followed (`moov/trak/udta/meta/ilst` is the deepest real path).
    static let maxDepth = 8
    /// `©xyz` as bytes: the copyright sign is one byte, 0xA9, not UTF-8, so it is compared undecoded.
    static let xyz: [UInt8] = [0xA9, 0x78, 0x79, 0x7A]
    /// The user type of a `uuid` box that holds an XMP packet (BE7ACFCB-97A9-42E8-9C71-999491E3AFAC).
    static let xmpUUID: [UInt8] = [
        0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
    ]

    /// Zeroes every location value in `bytes`; returns how many it zeroed.
    package static func scrub(_ bytes: inout [UInt8]) -> Int {
        scrub(&bytes, from: 0, to: bytes.count, depth: 0)
    }

    static func scrub(_ bytes: inout [UInt8], from: Int, to: Int, depth: Int) -> Int {
        guard depth < maxDepth else { return 0 }
        var zeroed = 0
        for box in boxes(bytes, from: from, to: to) {
            if isXYZ(bytes, box) {
                zero(&bytes, box.contentStart..<box.end)
                zeroed += 1
                continue
            }
            switch box.type {
            case _ where containers.contains(box.type):
                zeroed += scrub(&bytes, from: box.contentStart, to: box.end, depth: depth + 1)
            case "loci":
                // A full box: version and flags stay, the language, name, position and body go.
                zero(&bytes, min(box.contentStart + 4, box.end)..<box.end)
                zeroed += 1
            case "meta":
                zeroed += scrubMetadataItems(&bytes, meta: box)
            case "XMP_":
                zero(&bytes, box.contentStart..<box.end)
                zeroed += 1
            case "uuid"
            where box.end - box.contentStart >= 16
                && bytes[box.contentStart..<box.contentStart + 16].elementsEqual(xmpUUID):
                zero(&bytes, box.contentStart + 16..<box.end)  // the user type stays: readers know it for XMP
                zeroed += 1
            default:
                break
            }
        }
        return zeroed
    }

    /// A `meta` box's items: with a `keys` box (QuickTime's metadata), the values of the items whose key names a
    /// location; without (iTunes-style), the `©xyz` items. QuickTime's `meta` has no version and flags, ISO's has:
    /// its first child is `hdlr` either way.
    static func scrubMetadataItems(_ bytes: inout [UInt8], meta: Box) -> Int {
        let childrenStart: Int
        if meta.end - meta.contentStart >= 8, fourCC(bytes, meta.contentStart + 4) == "hdlr" {
            childrenStart = meta.contentStart
        } else if meta.end - meta.contentStart >= 12, fourCC(bytes, meta.contentStart + 8) == "hdlr" {
            childrenStart = meta.contentStart + 4
        } else {
            return 0  // not item metadata we know: no location in it
        }
        let children = boxes(bytes, from: childrenStart, to: meta.end)
        guard let items = children.first(where: { $0.type == "ilst" }) else { return 0 }
        var locationKeys: Set<UInt32> = []
        if let keys = children.first(where: { $0.type == "keys" }) {
            // Version and flags, a count, then boxes of (size, namespace, key) numbered from 1.
            for (index, key) in boxes(bytes, from: keys.contentStart + 8, to: keys.end).enumerated() {
                let name = Array(bytes[key.contentStart..<key.end])
                if isLocationKey(name) { locationKeys.insert(UInt32(index + 1)) }
            }
        }
        var zeroed = 0
        // `ilst`: one box per item, its type the key's number (or, without `keys`, a four-character code); its `data`
        // boxes hold a type, a locale, the value.
        for item in boxes(bytes, from: items.contentStart, to: items.end)
        where isXYZ(bytes, item) || locationKeys.contains(UInt32(HEIFMetadataScrubber.read(bytes, item.start + 4, 4))) {
            for value in boxes(bytes, from: item.contentStart, to: item.end) {
                if value.type == "data" {
                    zero(&bytes, min(value.contentStart + 8, value.end)..<value.end)
                } else {
                    zero(&bytes, value.contentStart..<value.end)
                }
            }
            zeroed += 1
        }
        return zeroed
    }

    /// `…location…` (Apple's keys), an ISO 6709 key, or a `udta`-namespace key `©xyz`.
    static func isLocationKey(_ name: [UInt8]) -> Bool {
        if name.count >= 4, name.suffix(4).elementsEqual(xyz) { return true }
        let text = String(decoding: name, as: UTF8.self).lowercased()
        return text.contains("location") || text.contains("iso6709")
    }

    /// Whether the box whose header starts `header` is one the walk looks into or zeroes (`VideoFileScrubber` reads
    /// only those).
    static func mayHoldLocation(_ header: [UInt8]) -> Bool {
        guard header.count >= 8 else { return false }
        let type = header[4..<8]
        return type.elementsEqual(xyz) || ["loci", "meta", "uuid", "XMP_"].contains(fourCC(header, 4))
            || containers.contains(fourCC(header, 4))
    }

    static func isXYZ(_ bytes: [UInt8], _ box: Box) -> Bool {
        bytes[box.start + 4..<box.start + 8].elementsEqual(xyz)
    }

    /// The boxes of `bytes[from..<to]`: a box that claims more than is left ends at `to`; the walk stops at a header
    /// that is cut short or claims less than itself.
    static func boxes(_ bytes: [UInt8], from: Int, to: Int) -> [Box] {
        var result: [Box] = []
        var position = from
        while position < to,
            let box = try? HEIFMetadataScrubber.box(in: bytes, at: position, to: to, clampedToParent: true)
        {
            result.append(box)
            position = box.end
        }
        return result
    }

    static func fourCC(_ bytes: [UInt8], _ position: Int) -> String {
        String(decoding: bytes[position..<position + 4], as: UTF8.self)
    }

    static func zero(_ bytes: inout [UInt8], _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        bytes.withUnsafeMutableBufferPointer { $0[range].update(repeating: 0) }
    }
}
