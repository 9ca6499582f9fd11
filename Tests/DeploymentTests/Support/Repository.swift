import Foundation

/// The repository's files, found from this source file's location (Tests/DeploymentTests/Support/…), so the
/// checks run from any working directory and need nothing but the checkout.
enum Repository {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // DeploymentTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: url(path).path) }

    static func isExecutable(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: url(path).path) }

    static func text(_ path: String) throws -> String { try String(contentsOf: url(path), encoding: .utf8) }

    /// Repository-relative paths of the files under `directory` whose names end in `suffix`, sorted.
    static func files(under directory: String, suffix: String) -> [String] {
        let base = url(directory)
        guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
            return []
        }
        var paths: [String] = []
        for case let file as URL in enumerator where file.lastPathComponent.hasSuffix(suffix) {
            paths.append(directory + "/" + file.path.dropFirst(base.path.count + 1))
        }
        return paths.sorted()
    }
}

/// Small regular-expression helpers (NSRegularExpression: the ICU syntax, look-behind included).
enum Pattern {
    /// Every match's capture groups (index 1…), with `nil` for groups that did not take part.
    static func matches(_ pattern: String, in text: String, options: NSRegularExpression.Options = []) -> [[String?]] {
        let expression = try! NSRegularExpression(pattern: pattern, options: options)
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).map { match in
            (1..<max(match.numberOfRanges, 1)).map { group in
                Range(match.range(at: group), in: text).map { String(text[$0]) }
            }
        }
    }

    /// `text` with every match replaced by `template`.
    static func replacing(_ pattern: String, in text: String, with template: String) -> String {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.stringByReplacingMatches(
            in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
    }

    /// The first capture group of every match.
    static func captures(_ pattern: String, in text: String, options: NSRegularExpression.Options = []) -> [String] {
        matches(pattern, in: text, options: options).compactMap { $0.first ?? nil }
    }
}
