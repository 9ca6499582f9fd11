import Foundation

/// Validates HTTP responses against the repository's OpenAPI document (`docs/api/openapi.json`): the request's
/// method and concrete path must name a documented operation, the status must be documented for it (exact code,
/// then `4XX`-style ranges, then `default`), and the body must fit the documented content: a JSON body its
/// schema (see `OpenAPISchemaChecker` for the keywords understood), a response documented without content an
/// empty body, other media types (images) only their `Content-Type`. Dependency-free: Foundation only.
///
///     let validator = try OpenAPIValidator.repositoryDocument()
///     let problems = validator.violations(method: "POST", path: "/v1/posts", status: 500, contentType: nil, body: [])
///     // ["status 500 not documented for POST /v1/posts (documented: 200, 400, 401, …)"]
package struct OpenAPIValidator: Sendable {
    package let document: JSONValue
    package let checker: OpenAPISchemaChecker
    package let operations: [Operation]

    /// One documented operation.
    package struct Operation: Sendable, Hashable, CustomStringConvertible {
        package let method: String
        package let path: OpenAPIPathTemplate
        package let operationId: String
        /// Documented status keys (`"200"`, `"4XX"`, `"default"`).
        package let statuses: [String]
        package var description: String { "\(method) \(path.template)" }
    }

    package static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    package init(document: JSONValue) throws {
        guard document["openapi"]?.string?.hasPrefix("3.1") == true, let paths = document["paths"]?.object else {
            throw InvalidDocument(reason: "not an OpenAPI 3.1 document with paths")
        }
        self.document = document
        self.checker = OpenAPISchemaChecker(document: document)
        var operations: [Operation] = []
        for (template, item) in paths.sorted(by: { $0.key < $1.key }) {
            for method in Self.methods {
                guard let operation = item[method] else { continue }
                let responses = operation["responses"]?.object ?? [:]
                operations.append(
                    Operation(
                        method: method.uppercased(), path: OpenAPIPathTemplate(template),
                        operationId: operation["operationId"]?.string ?? "\(method) \(template)",
                        statuses: responses.keys.sorted()))
            }
        }
        self.operations = operations
    }

    package init(contentsOf url: URL) throws {
        try self.init(document: try JSONValue.parse(Array(try Data(contentsOf: url))))
    }

    /// `docs/api/openapi.json` of this repository (found from this source file's location).
    package static var repositoryDocumentURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("docs/api/openapi.json")
    }

    package static func repositoryDocument() throws -> OpenAPIValidator {
        try OpenAPIValidator(contentsOf: repositoryDocumentURL)
    }

    /// `docs/api/openapi-g0.json`: the 2023 (G0, unprefixed) API (decision 0011).
    package static var repositoryG0DocumentURL: URL {
        repositoryDocumentURL.deletingLastPathComponent().appendingPathComponent("openapi-g0.json")
    }

    package static func repositoryG0Document() throws -> OpenAPIValidator {
        try OpenAPIValidator(contentsOf: repositoryG0DocumentURL)
    }

    /// `docs/api/openapi-g2.json`: the 2024–25 G2 encoding of the `/v1` routes (decision 0021).
    package static var repositoryG2DocumentURL: URL {
        repositoryDocumentURL.deletingLastPathComponent().appendingPathComponent("openapi-g2.json")
    }

    package static func repositoryG2Document() throws -> OpenAPIValidator {
        try OpenAPIValidator(contentsOf: repositoryG2DocumentURL)
    }

    package struct InvalidDocument: Error, CustomStringConvertible {
        package let reason: String
        package var description: String { "invalid OpenAPI document: \(reason)" }
    }

    /// The documented operation for a request (`path` may carry a query string, which is ignored).
    package func operation(method: String, path: String) -> Operation? {
        let bare = Self.pathOnly(path)
        let candidates = operations.filter { $0.method == method.uppercased() && $0.path.match(bare) != nil }
        return candidates.min { $0.path.isMoreSpecific(than: $1.path) }
    }

    /// Every way the response differs from the document; empty when it conforms.
    package func violations(method: String, path: String, status: Int, contentType: String?, body: [UInt8]) -> [String]
    {
        let bare = Self.pathOnly(path)
        let method = method.uppercased()
        guard let operation = operation(method: method, path: bare) else {
            if operations.contains(where: { $0.path.match(bare) != nil }) {
                return ["\(method) not documented for \(bare)"]
            }
            return ["path \(bare) not documented (\(method))"]
        }
        let responses = document["paths"]?[operation.path.template]?[method.lowercased()]?["responses"]?.object ?? [:]
        let key = ["\(status)", "\(status / 100)XX", "default"].first { responses[$0] != nil }
        guard let key, var response = responses[key] else {
            return [
                "status \(status) not documented for \(operation) (documented: \(operation.statuses.joined(separator: ", ")))"
            ]
        }
        if let reference = response["$ref"]?.string {
            guard let resolved = checker.resolve(reference) else {
                return ["unresolvable response $ref \(reference) for \(operation)"]
            }
            response = resolved
        }
        let label = "\(method) \(bare) → \(status)"
        guard let content = response["content"]?.object, !content.isEmpty else {
            return body.isEmpty ? [] : ["\(label): documented without a body, got \(body.count) bytes"]
        }
        let mediaType =
            (contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            ?? ""
        guard let media = content.first(where: { Self.mediaType(mediaType, matches: $0.key) })?.value else {
            return [
                "\(label): Content-Type \(contentType ?? "none") not documented (documented: \(content.keys.sorted().joined(separator: ", ")))"
            ]
        }
        guard Self.isJSON(mediaType) else { return [] }
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            return ["\(label): body is not JSON: \(String(decoding: body.prefix(120), as: UTF8.self))"]
        }
        guard let schema = media["schema"] else { return [] }
        return checker.violations(of: value, against: schema).map { "\(label): \($0)" }
    }

    /// The same for a reply of `GatewayClient`.
    package func violations(method: String, path: String, reply: GatewayClient.Reply) -> [String] {
        violations(
            method: method, path: path, status: reply.status, contentType: reply.header("Content-Type"),
            body: reply.body)
    }

    static func pathOnly(_ path: String) -> String {
        String(path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    static func isJSON(_ mediaType: String) -> Bool {
        mediaType == "application/json" || mediaType.hasSuffix("+json")
    }

    static func mediaType(_ actual: String, matches documented: String) -> Bool {
        let documented = documented.lowercased()
        if documented == "*/*" || documented == actual { return true }
        if documented.hasSuffix("/*") { return actual.hasPrefix(String(documented.dropLast())) }
        return false
    }
}
