import Foundation
import Testing

/// A fresh clone is all a reader has: every relative link in its Markdown must lead to a file of the clone, and
/// nothing may point at the team's workspace outside the repository.
@Suite("The repository stands alone")
struct RepositoryStandsAloneTests {
    /// Text files of the repository, build products and local state left out.
    static func files(withExtensions extensions: Set<String>) -> [URL] {
        let skipped: Set<String> = [".git", ".local", "node_modules"]
        guard
            let walker = FileManager.default.enumerator(
                at: Repository.root, includingPropertiesForKeys: [.isDirectoryKey])
        else { return [] }
        var found: [URL] = []
        for case let url as URL in walker {
            let name = url.lastPathComponent
            if skipped.contains(name) || name.hasPrefix(".build") {
                walker.skipDescendants()
                continue
            }
            if extensions.contains(url.pathExtension) { found.append(url) }
        }
        return found
    }

    @Test func everyRelativeMarkdownLinkLeadsToAFileOfTheRepository() throws {
        let link = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        var broken: [String] = []
        let documents = Self.files(withExtensions: ["md"])
        #expect(documents.count > 20, "the walk found the documentation")
        for document in documents {
            let text = try String(contentsOf: document, encoding: .utf8)
            for match in link.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                let target = String(text[range])
                if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:")
                    || target.hasPrefix("#")
                {
                    continue
                }
                let path = String(target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
                let resolved = document.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
                let inside = resolved.path.hasPrefix(Repository.root.standardizedFileURL.path)
                if !inside || !FileManager.default.fileExists(atPath: resolved.path) {
                    broken.append(
                        "\(document.path.replacingOccurrences(of: Repository.root.path + "/", with: "")): \(target)")
                }
            }
        }
        #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
    }

    /// No file names a document by a relative path that climbs out of the checkout, and code comments cite the
    /// repository's own API conventions (docs/api/conventions.md), never a contract kept elsewhere.
    @Test func nothingPointsOutsideTheRepository() throws {
        let climbing = try NSRegularExpression(pattern: #"(?:\.\./)+[A-Za-z0-9_./-]+\.md"#)
        let root = Repository.root.standardizedFileURL.path
        var offenders: [String] = []
        for file in Self.files(withExtensions: ["md", "swift", "sh", "yml", "yaml", "conf", "json", "sql", "template"])
        {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            let name = file.path.replacingOccurrences(of: root + "/", with: "")
            for match in climbing.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range, in: text) else { continue }
                let resolved = file.deletingLastPathComponent().appendingPathComponent(String(text[range]))
                    .standardizedFileURL.path
                if !resolved.hasPrefix(root) { offenders.append("\(name): \(text[range])") }
            }
            if text.contains("contract " + "§") {
                offenders.append("\(name): cites a contract section; cite API conventions §n")
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
