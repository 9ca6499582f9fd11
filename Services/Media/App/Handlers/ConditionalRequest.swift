/// The parts of HTTP conditional and range requests (RFC 9110 §13, §14) that image downloads need.
enum ConditionalRequest {
    /// What a `Range` header asks of a file of `size` bytes.
    enum RangeOutcome: Equatable {
        /// No usable range: serve the whole file with 200. Also for malformed and multi-range headers, which
        /// a server may ignore.
        case whole
        /// One satisfiable range (bounds inclusive, clamped to the file): 206.
        case partial(ClosedRange<Int>)
        /// A well-formed range that starts beyond the end, or an empty suffix: 416.
        case unsatisfiable
    }

    /// Evaluates a `Range` header: `bytes=a-b`, `bytes=a-`, `bytes=-n`.
    static func range(_ header: String?, size: Int) -> RangeOutcome {
        guard let header else { return .whole }
        let trimmed = header.trimmingWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count).trimmingWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = String(spec[..<dash]).trimmingWhitespace()
        let last = String(spec[spec.index(after: dash)...]).trimmingWhitespace()

        if first.isEmpty {
            // Suffix range: the last n bytes.
            guard let count = digits(last) else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - count)...(size - 1))
        }
        guard let start = digits(first) else { return .whole }
        var end = size - 1
        if !last.isEmpty {
            guard let value = digits(last), value >= start else { return .whole }
            end = min(value, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .partial(start...end)
    }

    /// Whether `If-None-Match` matches our entity tag (weak comparison, as RFC 9110 §13.1.2 prescribes).
    static func noneMatchHits(_ header: String?, etag: String) -> Bool {
        guard let header else { return false }
        if header.trimmingWhitespace() == "*" { return true }
        return header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingWhitespace()
            if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
            return tag == quoted(etag)
        }
    }

    /// Whether an `If-Range` header lets the range apply: only our exact strong tag does (a date never
    /// does: names are immutable, but we do not compare dates).
    static func ifRangeAllows(_ header: String?, etag: String) -> Bool {
        guard let header else { return true }
        return header.trimmingWhitespace() == quoted(etag)
    }

    static func quoted(_ etag: String) -> String { "\"" + etag + "\"" }

    /// A non-negative decimal number made only of ASCII digits (no sign, no spaces); too large ones
    /// saturate at `Int.max` (they are still well-formed, just beyond any file).
    private static func digits(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text) ?? Int.max
    }
}
