import Foundation

/// The routes each service's router registers, read from `Services/<Name>/App/<Name>Application.swift`:
/// `let x = router.group("v1/posts")` (or `router.group()`) gives `x` a prefix, and `x.get("hashtags", use: …)`,
/// `router.post("/v1/users/join", use: …)`, `api.get(use: …)` register a method and path. `:name` becomes
/// `{name}`; `/internal/…` routes are left out (never public). Operational routes (`/health`, `/ready`,
/// `/metrics`) come from the platform, not these files, and are not listed.
struct RegisteredRoute: Hashable, CustomStringConvertible {
    let service: String
    let method: String
    let path: String
    var description: String { "\(service): \(method) \(path)" }

    /// For a catch-all route (`/v1/uploads/**`), the prefix it serves.
    var wildcardPrefix: String? {
        path.hasSuffix("/**") ? String(path.dropLast(2)) : nil
    }

    static var servicesDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Services")
    }

    static func scanRepository() throws -> [RegisteredRoute] {
        let manager = FileManager.default
        var routes: [RegisteredRoute] = []
        for service in try manager.contentsOfDirectory(atPath: servicesDirectory.path).sorted() {
            let app = servicesDirectory.appendingPathComponent(service).appendingPathComponent("App")
            guard let files = try? manager.contentsOfDirectory(atPath: app.path) else { continue }
            for file in files where file.hasSuffix("Application.swift") {
                let text = try String(contentsOf: app.appendingPathComponent(file), encoding: .utf8)
                routes += try scan(text, service: service.lowercased())
            }
        }
        return routes
    }

    static func scan(_ text: String, service: String) throws -> [RegisteredRoute] {
        let whole = NSRange(text.startIndex..., in: text)
        func group(_ match: NSTextCheckingResult, _ index: Int) -> String? {
            Range(match.range(at: index), in: text).map { String(text[$0]) }
        }
        var prefixes = ["router": ""]
        let groups = try NSRegularExpression(pattern: #"let (\w+) = router\.group\((?:"([^"]*)")?\)"#)
        for match in groups.matches(in: text, range: whole) {
            prefixes[group(match, 1)!] = group(match, 2) ?? ""
        }
        var routes: [RegisteredRoute] = []
        let registrations = try NSRegularExpression(
            pattern: #"\b(\w+)\.(get|post|put|delete|patch|head)\((?:"([^"]*)"\s*,\s*)?use:"#)
        for match in registrations.matches(in: text, range: whole) {
            guard let prefix = prefixes[group(match, 1)!] else { continue }
            let pieces = [prefix, group(match, 3) ?? ""].map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            }
            let path = "/" + pieces.filter { !$0.isEmpty }.joined(separator: "/")
            let templated = path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            let route = RegisteredRoute(
                service: service, method: group(match, 2)!.uppercased(), path: "/" + templated.joined(separator: "/"))
            if !route.path.hasPrefix("/internal") { routes.append(route) }
        }
        return routes
    }
}
