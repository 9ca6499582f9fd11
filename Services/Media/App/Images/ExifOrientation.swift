/// The one Exif field a stored photo keeps (decision 0048): its orientation (TIFF tag 0x0112 in the first image
/// directory), which says how the pixels must be turned to show the photo upright. An iPhone's camera stores a
/// portrait photo's pixels sideways with orientation 6, and `UIImage.jpegData` keeps it that way, so a JPEG that lost
/// this tag shows lying on its side in every app.
///
/// The strippers read the orientation from the Exif they drop and write, in its place, a new Exif of one entry
/// (`tiff(orientation:)`): nothing of the original block (GPS, camera serial numbers, dates, thumbnails) is copied.
package enum ExifOrientation {
    /// The TIFF tag of the orientation.
    static let tag: UInt16 = 0x0112
    /// How much of an Exif block is read at most: a JPEG's Exif segment holds at most 65 533 bytes, and the first
    /// image directory sits near the start of every Exif we have seen; a larger block is read only this far.
    static let readLimit = 65_536
    /// The identifier a JPEG's Exif segment (and some WebP `EXIF` chunks) starts with, before the TIFF header.
    static let identifier: [UInt8] = Array("Exif\0\0".utf8)

    /// Appends to `exif` the part of `bytes` (the next bytes of a chunk whose first `blockLength` bytes are an Exif
    /// block) that belongs to the block and fits under `readLimit`.
    static func collect(_ bytes: some Collection<UInt8>, into exif: inout [UInt8], blockLength: Int) {
        let wanted = min(blockLength, readLimit) - exif.count
        if wanted > 0 { exif.append(contentsOf: bytes.prefix(wanted)) }
    }

    /// The orientation of the TIFF structure in `bytes` (an Exif block without its `Exif\0\0` identifier), when it is
    /// one of 2…8 (1 is upright, the same as none); nil when there is none or the structure does not hold together.
    static func orientation(inTIFF bytes: ArraySlice<UInt8>) -> UInt16? {
        let base = bytes.startIndex
        guard bytes.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (bytes[base], bytes[base + 1]) {
        case (0x4D, 0x4D): bigEndian = true  // "MM"
        case (0x49, 0x49): bigEndian = false  // "II"
        default: return nil
        }
        func u16(_ offset: Int) -> UInt16? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let a = UInt16(bytes[base + offset]), b = UInt16(bytes[base + offset + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ offset: Int) -> UInt32? {
            guard let high = u16(bigEndian ? offset : offset + 2), let low = u16(bigEndian ? offset + 2 : offset) else {
                return nil
            }
            return UInt32(high) << 16 | UInt32(low)
        }
        guard u16(2) == 42, let directory = u32(4).map(Int.init), directory >= 8, let count = u16(directory) else {
            return nil
        }
        for entry in 0..<Int(count) {
            let at = directory + 2 + 12 * entry
            guard let tag = u16(at) else { return nil }  // the directory runs past the block
            guard tag == Self.tag else { continue }
            // SHORT (type 3), at least one value, which sits in the entry's first two value bytes.
            guard u16(at + 2) == 3, let values = u32(at + 4), values >= 1, let value = u16(at + 8) else { return nil }
            return (2...8).contains(value) ? value : nil
        }
        return nil
    }

    /// The orientation of a whole Exif block: with or without the `Exif\0\0` identifier before its TIFF header.
    static func orientation(inExif bytes: ArraySlice<UInt8>) -> UInt16? {
        if bytes.starts(with: identifier) { return orientation(inTIFF: bytes.dropFirst(identifier.count)) }
        return orientation(inTIFF: bytes)
    }

    /// A TIFF structure (big-endian, as Apple writes it) whose first image directory holds the orientation alone.
    static func tiff(orientation: UInt16) -> [UInt8] {
        let value = [UInt8(orientation >> 8), UInt8(orientation & 0xFF)]
        return [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]  // "MM", 42, the directory at byte 8
            + [0x00, 0x01]  // one entry:
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01] + value + [0x00, 0x00]  // 0x0112, SHORT, 1 value
            + [0x00, 0x00, 0x00, 0x00]  // no next directory
    }
}
