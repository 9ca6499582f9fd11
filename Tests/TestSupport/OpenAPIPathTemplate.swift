import Foundation

/// An OpenAPI path template (`/v1/posts/{post_id}/comments`), matched against concrete request paths segment
/// by segment: a literal segment must be equal, a `{name}` segment takes any one non-empty segment (so a
/// parameter never spans a `/`). When several templates match, the one with a literal segment where the others
/// have a parameter wins, as OpenAPI requires (`/v1/posts/hashtags` before `/v1/posts/{post_id}`).
package struct OpenAPIPathTemplate: Sendable, Hashable, CustomStringConvertible {
    package let template: String
    let segments: [Segment]

    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    package init(_ template: String) {
        self.template = template
        self.segments = Self.split(template).map { segment in
            if segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2 {
                return .parameter(String(segment.dropFirst().dropLast()))
            }
            return .literal(segment)
        }
    }

    package var description: String { template }

    /// The parameter values if `path` (no query string) matches, else nil.
    package func match(_ path: String) -> [String: String]? {
        let parts = Self.split(path)
        guard parts.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let literal):
                guard literal == part else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                values[name] = part.removingPercentEncoding ?? part
            }
        }
        return values
    }

    /// Whether `self` is more specific than `other` (a literal at the first segment where they differ in kind).
    func isMoreSpecific(than other: OpenAPIPathTemplate) -> Bool {
        for (mine, theirs) in zip(segments, other.segments) {
            switch (mine, theirs) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }

    /// `template` with every parameter replaced by `value(name)`.
    package func filled(_ value: (String) -> String) -> String {
        "/"
            + segments.map { segment in
                switch segment {
                case .literal(let literal): literal
                case .parameter(let name): value(name)
                }
            }.joined(separator: "/")
    }

    static func split(_ path: String) -> [String] {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return trimmed.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }
}
