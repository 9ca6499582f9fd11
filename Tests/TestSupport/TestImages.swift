import Foundation

/// Image bytes the tests upload.
package enum TestImages {
    /// A 1×1 PNG.
    package static let png: [UInt8] = Array(
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!)

    /// A minimal MP4 (what WeeMo uploads for videos): a `ftyp` box of brand `isom` and an empty `mdat` box.
    package static let mp4: [UInt8] =
        [0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8) + [0, 0, 0, 8]
        + Array("mdat".utf8)
}
