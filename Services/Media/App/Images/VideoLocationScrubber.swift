/// Removes where a video was shot from an MP4 or QuickTime file, in place: the bytes of every location value become
/// zeros, so every box size and offset stays valid and the media data is untouched. An iPhone writes the position
/// twice: as a QuickTime user-data string `©xyz` (`moov/udta`), and as the metadata item
/// `com.apple.quicktime.location.ISO6709` (with its accuracy and other `…location…` keys) in `moov/meta`, whose `keys`
/// box names the items and whose `ilst` holds their values. 3GPP files may carry a `loci` box in `udta`.
///
/// The other metadata (device make and model, software, creation date) is kept: it says nothing about where the user
/// was, and players show it. Video files were accepted as they came before this existed, so the walk is lenient: it
/// stops, at any level, at the first box that does not fit (trailing bytes, a cut file) and keeps what it zeroed. ISO/IEC 14496-12 (boxes), Apple's QuickTime File Format (user data, metadata `keys`
/// and `ilst`), 3GPP TS 26.244 (`loci`).
package enum VideoLocationScrubber {
    typealias Box = HEIFMetadataScrubber.Box

    /// The containers that can lead to location metadata (`trak` may carry its own `udta` and `meta`).
    static let containers: Set<String> = ["moov", "trak", "udta"]

    /// Zeroes every location value in `bytes`; returns how many it zeroed.
    package static func scrub(_ bytes: inout [UInt8]) -> Int {
        scrub(&bytes, from: 0, to: bytes.count)
    }

    static func scrub(_ bytes: inout [UInt8], from: Int, to: Int) -> Int {
        var zeroed = 0
        for box in boxes(bytes, from: from, to: to) {
            // `©xyz`: the copyright sign is one byte, 0xA9 (not UTF-8, so not comparable as the decoded type).
            if bytes[box.start + 4..<box.start + 8].elementsEqual([0xA9, 0x78, 0x79, 0x7A]) {
                zero(&bytes, box.contentStart..<box.end)
                zeroed += 1
                continue
            }
            switch box.type {
            case _ where containers.contains(box.type):
                zeroed += scrub(&bytes, from: box.contentStart, to: box.end)
            case "loci":
                // A full box: version and flags stay, the language, name, position and body go.
                zero(&bytes, min(box.contentStart + 4, box.end)..<box.end)
                zeroed += 1
            case "meta":
                zeroed += scrubMetadataItems(&bytes, meta: box)
            default:
                break
            }
        }
        return zeroed
    }

    /// `meta` with a `keys` box (QuickTime's metadata): zeroes the values of the items whose key names a location.
    /// QuickTime's `meta` has no version and flags, ISO's has: its first child is `hdlr` either way.
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
        guard let keys = children.first(where: { $0.type == "keys" }),
            let items = children.first(where: { $0.type == "ilst" })
        else { return 0 }
        // `keys`: version and flags, a count, then boxes of (size, namespace, key) numbered from 1.
        var locationKeys: Set<UInt32> = []
        for (index, key) in boxes(bytes, from: keys.contentStart + 8, to: keys.end).enumerated() {
            let name = String(decoding: bytes[key.contentStart..<key.end], as: UTF8.self)
            if name.lowercased().contains("location") { locationKeys.insert(UInt32(index + 1)) }
        }
        guard !locationKeys.isEmpty else { return 0 }
        var zeroed = 0
        // `ilst`: one box per item, its type the key's number; its `data` boxes hold a type, a locale, the value.
        for item in boxes(bytes, from: items.contentStart, to: items.end)
        where locationKeys.contains(UInt32(HEIFMetadataScrubber.read(bytes, item.start + 4, 4))) {
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

    /// The boxes of `bytes[from..<to]` up to the first that does not fit.
    static func boxes(_ bytes: [UInt8], from: Int, to: Int) -> [Box] {
        var result: [Box] = []
        var position = from
        while position < to, let box = try? HEIFMetadataScrubber.box(in: bytes, at: position, to: to) {
            result.append(box)
            position = box.end
        }
        return result
    }

    static func fourCC(_ bytes: [UInt8], _ position: Int) -> String {
        String(decoding: bytes[position..<position + 4], as: UTF8.self)
    }

    static func zero(_ bytes: inout [UInt8], _ range: Range<Int>) {
        for index in range { bytes[index] = 0 }
    }
}
