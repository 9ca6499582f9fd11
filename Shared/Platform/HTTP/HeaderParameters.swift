/// A header value of the form `token; key=value; key="quoted; value"` (`Content-Type`, `Content-Disposition`),
/// parsed leniently: keys are lower-cased, quoted values may hold `;` and backslash escapes.
package struct HeaderParameters: Sendable, Equatable {
    /// The part before the first `;`, lower-cased and trimmed (`multipart/form-data`, `form-data`).
    package var value: String
    package var parameters: [String: String]

    package init(_ raw: String) {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in raw {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted && character == "\\" {
                current.append(character)
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                current.append(character)
            } else if character == ";" && !quoted {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current)

        self.value = pieces.first.map { $0.trimmingWhitespace().lowercased() } ?? ""
        var parameters: [String: String] = [:]
        for piece in pieces.dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let key = piece[..<equals].trimmingWhitespace().lowercased()
            var value = piece[piece.index(after: equals)...].trimmingWhitespace()
            if value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") {
                value = Self.unquote(String(value.dropFirst().dropLast()))
            }
            if !key.isEmpty && parameters[key] == nil { parameters[key] = value }
        }
        self.parameters = parameters
    }

    static func unquote(_ text: String) -> String {
        var result = ""
        var escaped = false
        for character in text {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// The boundary of a `multipart/form-data` content type, if it is one with a usable boundary
    /// (1–70 characters, RFC 2046, no CR/LF or quotes).
    package static func multipartBoundary(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let header = HeaderParameters(contentType)
        guard header.value == "multipart/form-data", let boundary = header.parameters["boundary"] else { return nil }
        guard (1...70).contains(boundary.utf8.count),
            boundary.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") })
        else { return nil }
        return boundary
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (header whitespace).
    package func trimmingWhitespace() -> String {
        var text = String(self)[...]
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
