@testable import MediaService

/// The whole-file JPEG stripper as it was before it learned to work on a stream (decision 0046), kept as the oracle
/// the streaming one must agree with: the same output, or the same refusal, whatever the chunks.
enum ReferenceJPEGStripper {
    static let soi: UInt8 = 0xD8
    static let eoi: UInt8 = 0xD9
    static let sos: UInt8 = 0xDA
    static let removed: Set<UInt8> = [0xE1, 0xED, 0xFE]
    static let frames: Set<UInt8> = [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF]

    static func strip(_ data: [UInt8]) throws -> [UInt8] {
        guard data.count >= 4, data[0] == 0xFF, data[1] == soi else {
            throw JPEGMetadataStripper.Malformed(reason: "does not start with SOI")
        }
        var output: [UInt8] = [0xFF, soi]
        output.reserveCapacity(data.count)
        var index = 2
        var sawFrame = false

        while true {
            // A marker: 0xFF, any number of 0xFF fill bytes, then the marker code.
            guard index < data.count, data[index] == 0xFF else {
                throw JPEGMetadataStripper.Malformed(reason: "expected a marker at byte \(index)")
            }
            while index < data.count && data[index] == 0xFF { index += 1 }
            guard index < data.count else {
                throw JPEGMetadataStripper.Malformed(reason: "truncated marker at the end")
            }
            let marker = data[index]
            index += 1

            switch marker {
            case eoi:
                guard sawFrame else { throw JPEGMetadataStripper.Malformed(reason: "no image data before EOI") }
                output.append(contentsOf: [0xFF, eoi])
                return output
            case soi, 0x00:
                throw JPEGMetadataStripper.Malformed(
                    reason: "unexpected marker 0x\(String(marker, radix: 16)) at byte \(index - 1)")
            case 0x01, 0xD0...0xD7:
                // TEM and RSTn stand alone (no length).
                output.append(contentsOf: [0xFF, marker])
                continue
            default:
                break
            }

            // A segment with a 2-byte big-endian length that counts itself.
            guard index + 2 <= data.count else {
                throw JPEGMetadataStripper.Malformed(reason: "truncated segment length at byte \(index)")
            }
            let length = Int(data[index]) << 8 | Int(data[index + 1])
            guard length >= 2, index + length <= data.count else {
                throw JPEGMetadataStripper.Malformed(
                    reason: "segment 0x\(String(marker, radix: 16)) at byte \(index - 2) runs past the end")
            }
            let end = index + length
            if !removed.contains(marker) {
                output.append(contentsOf: [0xFF, marker])
                output.append(contentsOf: data[index..<end])
            }
            index = end
            if frames.contains(marker) { sawFrame = true }

            if marker == sos {
                guard sawFrame else { throw JPEGMetadataStripper.Malformed(reason: "scan before any frame header") }
                // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00 nor a restart marker.
                let start = index
                while true {
                    guard index + 1 < data.count else {
                        throw JPEGMetadataStripper.Malformed(reason: "scan data not terminated (no EOI)")
                    }
                    if data[index] == 0xFF {
                        let next = data[index + 1]
                        if next == 0x00 || (0xD0...0xD7).contains(next) {
                            index += 2
                            continue
                        }
                        break
                    }
                    index += 1
                }
                output.append(contentsOf: data[start..<index])
            }
        }
    }
}
