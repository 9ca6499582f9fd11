import Foundation

/// The gateway's locations (`deploy/nginx/routes.conf`, one `location … { … }` per line) and nginx's choice among
/// them for a request path: an exact `=` match; else the longest prefix, taken at once if it is `^~`; else the
/// first matching regular expression (in file order); else that longest prefix.
struct GatewayRoutes {
    struct Location: CustomStringConvertible {
        enum Kind { case exact, preferredPrefix, prefix, regex }
        let kind: Kind
        let pattern: String
        /// The upstream of `proxy_pass http://<name>`, `"file"` for an `alias`, else `"other"`.
        let target: String
        /// The location's whole text, for rewrites (`rewrite ^ /v1/__not-public__`) and diagnostics.
        let body: String
        var description: String { "location \(pattern) → \(target)" }
    }

    let locations: [Location]

    static var repositoryFile: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("deploy/nginx/routes.conf")
    }

    init(text: String) throws {
        let line = try NSRegularExpression(pattern: #"^\s*location\s+(?:(=|\^~|~\*|~)\s+)?(\S+)\s*\{(.*)\}\s*$"#)
        let proxy = try NSRegularExpression(pattern: #"proxy_pass http://([a-z][a-z0-9_]*);"#)
        var locations: [Location] = []
        for raw in text.split(separator: "\n").map(String.init) {
            guard let match = line.firstMatch(in: raw, range: NSRange(raw.startIndex..., in: raw)) else { continue }
            func group(_ index: Int) -> String? {
                Range(match.range(at: index), in: raw).map { String(raw[$0]) }
            }
            let pattern = group(2) ?? ""
            let body = group(3) ?? ""
            // Named and internal locations are reached only by error_page, never by a client's path.
            guard !pattern.hasPrefix("@"), !body.contains("internal;") else { continue }
            let kind: Location.Kind =
                switch group(1) ?? "" {
                case "=": .exact
                case "^~": .preferredPrefix
                case "~", "~*": .regex
                default: .prefix
                }
            var target = "other"
            if let upstream = proxy.firstMatch(in: body, range: NSRange(body.startIndex..., in: body)),
                let range = Range(upstream.range(at: 1), in: body)
            {
                target = String(body[range])
            } else if body.contains("alias ") {
                target = "file"
            }
            locations.append(Location(kind: kind, pattern: pattern, target: target, body: body))
        }
        self.locations = locations
    }

    static func repository() throws -> GatewayRoutes {
        try GatewayRoutes(text: try String(contentsOf: repositoryFile, encoding: .utf8))
    }

    /// The location nginx picks for a (normalised) request path.
    func location(for path: String) -> Location? {
        if let exact = locations.first(where: { $0.kind == .exact && $0.pattern == path }) { return exact }
        let longest = locations.filter {
            ($0.kind == .prefix || $0.kind == .preferredPrefix) && path.hasPrefix($0.pattern)
        }
        .max { $0.pattern.count < $1.pattern.count }
        if let longest, longest.kind == .preferredPrefix { return longest }
        for location in locations where location.kind == .regex {
            if let regex = try? NSRegularExpression(pattern: location.pattern),
                regex.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil
            {
                return location
            }
        }
        return longest
    }

    /// Whether the location hands the request to a service as it is (not the catch-all, not a "not public" rewrite).
    /// A location that hands HTTP API requests to a service (not the fallback, a rewrite to "not public", or the
    /// Socket.IO endpoint, which the OpenAPI document does not describe).
    static func isRoute(_ location: Location) -> Bool {
        location.pattern != "/" && !location.body.contains("rewrite ") && !location.target.hasSuffix("_sockets")
    }
}
