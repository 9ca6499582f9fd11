import Foundation

/// Splits a SQL script into single statements, so a plain-SQL migration file can run statement by statement
/// over the extended query protocol (which takes one statement at a time). Semicolons inside quotes
/// (`'…'`, `"…"`), dollar quotes (`$$…$$`, `$tag$…$tag$`) and comments (`-- …`, `/* … */`) do not split.
package enum SQLScript {
    package static func statements(_ script: String) -> [String] {
        let chars = Array(script.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0

        func flush() {
            let text = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty && !isOnlyComments(text) { statements.append(text) }
            current = String.UnicodeScalarView()
        }

        while index < chars.count {
            let c = chars[index]
            let next: Unicode.Scalar? = index + 1 < chars.count ? chars[index + 1] : nil
            if c == "-" && next == "-" {
                while index < chars.count && chars[index] != "\n" { current.append(chars[index]); index += 1 }
                continue
            }
            if c == "/" && next == "*" {
                while index < chars.count
                    && !(chars[index] == "*" && index + 1 < chars.count && chars[index + 1] == "/")
                {
                    current.append(chars[index]); index += 1
                }
                if index < chars.count { current.append("*"); current.append("/"); index += 2 }
                continue
            }
            if c == "'" || c == "\"" {
                current.append(c); index += 1
                while index < chars.count {
                    current.append(chars[index])
                    if chars[index] == c {
                        if index + 1 < chars.count && chars[index + 1] == c { current.append(c); index += 2; continue }
                        index += 1
                        break
                    }
                    index += 1
                }
                continue
            }
            if c == "$", let tagEnd = dollarTagEnd(chars, from: index) {
                let tag = Array(chars[index...tagEnd])
                for scalar in tag { current.append(scalar) }
                index = tagEnd + 1
                while index < chars.count {
                    if chars[index] == "$" && index + tag.count <= chars.count
                        && Array(chars[index..<index + tag.count]) == tag
                    {
                        for scalar in tag { current.append(scalar) }
                        index += tag.count
                        break
                    }
                    current.append(chars[index]); index += 1
                }
                continue
            }
            if c == ";" { flush(); index += 1; continue }
            current.append(c); index += 1
        }
        flush()
        return statements
    }

    /// `$$` or `$tag$` starting at `start`: returns the index of the closing `$` of the opening tag.
    static func dollarTagEnd(_ chars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start + 1
        while index < chars.count {
            let c = chars[index]
            if c == "$" { return index }
            guard c == "_" || c.properties.isAlphabetic || (index > start + 1 && ("0"..."9").contains(c)) else {
                return nil
            }
            index += 1
        }
        return nil
    }

    static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty || trimmed.hasPrefix("--")
        }
    }
}
