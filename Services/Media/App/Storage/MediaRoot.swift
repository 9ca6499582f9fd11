import SNSPlatform

/// The on-disk layout under `SNS_MEDIA_ROOT`: stored files at `<root>/<kind>/<name>.<ext>` (the store-relative
/// part is `MediaPath.relativePath`, which only ever holds `[a-z0-9.]` and one `/`, so no request can name a
/// file outside the root), files being received in `<root>/.tmp/`. Both on one file system, so moving a
/// finished file into place is one atomic `rename`.
package struct MediaRoot: Sendable {
    package let path: String

    package init(path: String) {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }

    package var temporaryDirectory: String { path + "/.tmp" }

    package func directory(of kind: MediaPath.Kind) -> String { path + "/" + kind.rawValue }

    /// Where the file of `mediaPath` lives.
    package func location(of mediaPath: MediaPath) -> String { path + "/" + mediaPath.relativePath }

    /// A fresh, unique name in the temp directory.
    func newTemporaryPath() -> String {
        var generator = SystemRandomNumberGenerator()
        let suffix = (0..<12).map { _ -> String in
            let hex = String(UInt8.random(in: 0...255, using: &generator), radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
        return temporaryDirectory + "/upload-" + suffix + ".part"
    }

    /// Creates the root, the temp directory and one directory per kind, if missing.
    func prepare() async throws {
        try await MediaDisk.createDirectories([path, temporaryDirectory] + MediaPath.Kind.allCases.map(directory(of:)))
    }
}
