import Crypto
import Foundation

/// Paths of stored files, as the API hands them out: `uploads/<kind>/<name>.<ext>` (API conventions §1.3, §10.7).
///
/// The name is 40 lower-case hex digits: 10 random bytes, then the first 10 bytes of
/// HMAC-SHA256(key, "<kind>/<random>.<ext>:<owner>"). So names are not guessable, and any service holding the
/// media signing key can tell — locally, without asking the media service and without waiting for an
/// event — that a path was issued by our media service to that owner. The posts service uses this to accept
/// only files this system stored for the caller (decision 0004).
package struct MediaPath: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, CaseIterable {
        case posts
        case profiles
        /// Files sent in chat rooms.
        case chats
    }

    package let kind: Kind
    package let name: String
    package let fileExtension: String

    package var description: String { "uploads/\(kind.rawValue)/\(name).\(fileExtension)" }
    package var string: String { description }

    /// The store-relative location of the file: `<kind>/<name>.<ext>`.
    package var relativePath: String { "\(kind.rawValue)/\(name).\(fileExtension)" }

    package static let allowedExtensions: Set<String> = ["jpg", "png", "gif", "webp", "heic", "mp4", "mov"]

    /// Parses a path strictly (no traversal, no other characters). `nil` when it is not a path we could have issued.
    package init?(_ raw: String) {
        let parts = raw.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "uploads", let kind = Kind(rawValue: String(parts[1])) else { return nil }
        let file = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard file.count == 2, Self.allowedExtensions.contains(String(file[1])) else { return nil }
        let name = String(file[0])
        guard name.utf8.count == 40, name.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return nil
        }
        self.kind = kind
        self.name = name
        self.fileExtension = String(file[1])
    }

    private init(kind: Kind, name: String, fileExtension: String) {
        self.kind = kind
        self.name = name
        self.fileExtension = fileExtension
    }
}

/// Issues and checks `MediaPath`s with the shared signing key (`SNS_MEDIA_SIGNING_KEY`).
package struct MediaPathSigner: Sendable {
    let key: SymmetricKey

    /// - Parameter secret: at least 32 bytes of secret material.
    package init(secret: String) throws {
        guard secret.utf8.count >= 32 else {
            throw ConfigurationError(variable: "SNS_MEDIA_SIGNING_KEY", reason: "must be at least 32 characters")
        }
        self.key = SymmetricKey(data: Data(secret.utf8))
    }

    /// A fresh, unguessable path for a file of `owner`.
    package func issue(kind: MediaPath.Kind, fileExtension: String, owner: String) -> MediaPath {
        precondition(MediaPath.allowedExtensions.contains(fileExtension))
        var generator = SystemRandomNumberGenerator()
        let random = Self.hex((0..<10).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let name = random + mac(kind: kind, random: random, fileExtension: fileExtension, owner: owner)
        return MediaPath("uploads/\(kind.rawValue)/\(name).\(fileExtension)")!
    }

    /// Whether `path` was issued by the media service to `owner`.
    package func isIssued(_ path: MediaPath, to owner: String) -> Bool {
        let random = String(path.name.prefix(20))
        let expected = mac(kind: path.kind, random: random, fileExtension: path.fileExtension, owner: owner)
        // Constant-time comparison of the two hex strings.
        let given = Array(path.name.utf8.dropFirst(20))
        let wanted = Array(expected.utf8)
        guard given.count == wanted.count else { return false }
        var difference: UInt8 = 0
        for index in given.indices { difference |= given[index] ^ wanted[index] }
        return difference == 0
    }

    private func mac(kind: MediaPath.Kind, random: String, fileExtension: String, owner: String) -> String {
        let message = Data("\(kind.rawValue)/\(random).\(fileExtension):\(owner)".utf8)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: key)
        return Self.hex(Array(code.prefix(10)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
