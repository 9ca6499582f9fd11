import Foundation

/// Ids look like the original server's MongoDB ObjectIds (24 lower-case hex digits, API conventions §1.4):
/// 4 bytes of seconds since 1970 then 8 random bytes. Clients treat them as opaque strings.
package enum ObjectID {
    package static func generate(now: Date = Date()) -> String {
        var generator = SystemRandomNumberGenerator()
        let seconds = UInt32(truncatingIfNeeded: Int64(now.timeIntervalSince1970))
        var bytes: [UInt8] = withUnsafeBytes(of: seconds.bigEndian, Array.init)
        for _ in 0..<8 { bytes.append(UInt8.random(in: 0...255, using: &generator)) }
        return bytes.map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    package static func isValid(_ value: String) -> Bool {
        value.utf8.count == 24 && value.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
