import Foundation

/// Image bytes the tests upload.
package enum TestImages {
    /// A 1×1 PNG.
    package static let png: [UInt8] = Array(
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!)
}
