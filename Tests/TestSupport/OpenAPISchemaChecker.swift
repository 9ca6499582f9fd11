import Foundation

/// Checks a JSON value against the subset of JSON Schema (OpenAPI 3.1 dialect) that `docs/api/openapi.json`
/// uses: `$ref` (any `#/…` pointer into the document), `type` (a name or an array of names, `"null"` among
/// them), `enum`, `const`, `required`, `properties`, `additionalProperties` (`false` or a schema), `items`,
/// `minItems`/`maxItems`, `pattern`, `minLength`/`maxLength`, `minimum`/`maximum`, `allOf`/`anyOf`/`oneOf`.
/// Annotations (`description`, `format`, `default`, `examples`, …) are ignored. `unsupportedKeywords` lists
/// anything else a document uses, so a test can insist the checker understands every constraint it relies on.
package struct OpenAPISchemaChecker: Sendable {
    package let document: JSONValue

    package static let constraintKeywords: Set<String> = [
        "$ref", "type", "enum", "const", "required", "properties", "additionalProperties", "items", "minItems",
        "maxItems",
        "uniqueItems", "pattern", "minLength", "maxLength", "minimum", "maximum", "allOf", "anyOf", "oneOf",
    ]
    package static let annotationKeywords: Set<String> = [
        "description", "title", "format", "default", "examples", "example", "deprecated", "readOnly", "writeOnly",
        "contentMediaType",
    ]

    package init(document: JSONValue) {
        self.document = document
    }

    /// Every violation of `schema` by `value`, each prefixed with its location (`$.data[0].creator`).
    package func violations(of value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        var found: [String] = []
        check(value, schema, path, &found, depth: 0)
        return found
    }

    /// Resolves a local reference (`#/components/schemas/Post`).
    package func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#") else { return nil }
        var node: JSONValue? = document
        for token in reference.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let array = node?.array, let index = Int(key), array.indices.contains(index) {
                node = array[index]
            } else {
                node = node?[key]
            }
        }
        return node
    }

    private func check(_ value: JSONValue, _ schema: JSONValue, _ path: String, _ found: inout [String], depth: Int) {
        guard depth < 64 else { found.append("\(path): schema nesting too deep (a $ref cycle?)"); return }
        if case .bool(let accepts) = schema {
            if !accepts { found.append("\(path): no value is allowed here, got \(value.typeName)") }
            return
        }
        guard let keywords = schema.object else {
            found.append("\(path): the document's schema is not an object"); return
        }

        if let reference = keywords["$ref"]?.string {
            guard let target = resolve(reference) else {
                found.append("\(path): unresolvable $ref \(reference)"); return
            }
            check(value, target, path, &found, depth: depth + 1)
        }
        if let type = keywords["type"] {
            let allowed = type.array?.compactMap(\.string) ?? [type.string].compactMap { $0 }
            let actual = value.typeName
            let matches = allowed.contains(actual) || (actual == "integer" && allowed.contains("number"))
            if !matches {
                found.append(
                    "\(path): expected \(allowed.joined(separator: " or ")), got \(actual) \(Self.excerpt(value))")
                return
            }
        }
        if let options = keywords["enum"]?.array, !options.contains(value) {
            found.append(
                "\(path): \(Self.excerpt(value)) is not one of \(options.map(\.description).joined(separator: ", "))")
        }
        if let constant = keywords["const"], constant != value {
            found.append("\(path): expected \(constant), got \(Self.excerpt(value))")
        }
        switch value {
        case .object(let object): checkObject(object, keywords, path, &found, depth: depth)
        case .array(let items): checkArray(items, keywords, path, &found, depth: depth)
        case .string(let text): checkString(text, keywords, path, &found)
        case .number(let number): checkNumber(number, keywords, path, &found)
        case .bool, .null: break
        }
        if let all = keywords["allOf"]?.array {
            for sub in all { check(value, sub, path, &found, depth: depth + 1) }
        }
        if let any = keywords["anyOf"]?.array {
            let passing = any.filter { violations(of: value, against: $0, at: path).isEmpty }
            if passing.isEmpty { found.append("\(path): matches none of anyOf's \(any.count) schemas") }
        }
        if let one = keywords["oneOf"]?.array {
            let passing = one.filter { violations(of: value, against: $0, at: path).isEmpty }.count
            if passing != 1 {
                found.append("\(path): matches \(passing) of oneOf's \(one.count) schemas, not exactly one")
            }
        }
    }

    private func checkObject(
        _ object: [String: JSONValue], _ keywords: [String: JSONValue], _ path: String,
        _ found: inout [String], depth: Int
    ) {
        for key in keywords["required"]?.array?.compactMap(\.string) ?? [] where object[key] == nil {
            found.append("\(path): missing required key \"\(key)\"")
        }
        let properties = keywords["properties"]?.object ?? [:]
        for key in object.keys.sorted() {
            let child = "\(path).\(key)"
            if let schema = properties[key] {
                check(object[key]!, schema, child, &found, depth: depth + 1)
            } else if let additional = keywords["additionalProperties"] {
                if case .bool(false) = additional {
                    found.append("\(path): unexpected key \"\(key)\" (additionalProperties is false)")
                } else {
                    check(object[key]!, additional, child, &found, depth: depth + 1)
                }
            }
        }
    }

    private func checkArray(
        _ items: [JSONValue], _ keywords: [String: JSONValue], _ path: String, _ found: inout [String], depth: Int
    ) {
        if let minimum = keywords["minItems"]?.integer, items.count < minimum {
            found.append("\(path): fewer than \(minimum) items")
        }
        if let maximum = keywords["maxItems"]?.integer, items.count > maximum {
            found.append("\(path): more than \(maximum) items")
        }
        if case .bool(true) = keywords["uniqueItems"], Set(items.map(\.description)).count != items.count {
            found.append("\(path): items are not unique")
        }
        if let schema = keywords["items"] {
            for (index, item) in items.enumerated() {
                check(item, schema, "\(path)[\(index)]", &found, depth: depth + 1)
            }
        }
    }

    private func checkString(_ text: String, _ keywords: [String: JSONValue], _ path: String, _ found: inout [String]) {
        let length = text.unicodeScalars.count
        if let minimum = keywords["minLength"]?.integer, length < minimum {
            found.append("\(path): shorter than \(minimum) characters")
        }
        if let maximum = keywords["maxLength"]?.integer, length > maximum {
            found.append("\(path): longer than \(maximum) characters")
        }
        if let pattern = keywords["pattern"]?.string {
            guard let regex = try? NSRegularExpression(pattern: pattern) else {
                found.append("\(path): the document's pattern \(pattern) does not compile")
                return
            }
            let range = NSRange(text.startIndex..., in: text)
            if regex.firstMatch(in: text, range: range) == nil {
                found.append("\(path): \(Self.excerpt(.string(text))) does not match \(pattern)")
            }
        }
    }

    private func checkNumber(_ number: Double, _ keywords: [String: JSONValue], _ path: String, _ found: inout [String])
    {
        if case .number(let minimum) = keywords["minimum"], number < minimum {
            found.append("\(path): \(number) is below \(minimum)")
        }
        if case .number(let maximum) = keywords["maximum"], number > maximum {
            found.append("\(path): \(number) is above \(maximum)")
        }
    }

    /// Keywords of schemas in the document that are neither understood constraints nor annotations, with where.
    package func unsupportedKeywords() -> [String] {
        var found: [String] = []
        func visitSchema(_ schema: JSONValue, _ path: String) {
            guard let keywords = schema.object else { return }
            for (key, child) in keywords {
                switch key {
                case "properties":
                    for (name, sub) in child.object ?? [:] { visitSchema(sub, "\(path)/properties/\(name)") }
                case "items", "additionalProperties":
                    visitSchema(child, "\(path)/\(key)")
                case "allOf", "anyOf", "oneOf":
                    for (index, sub) in (child.array ?? []).enumerated() { visitSchema(sub, "\(path)/\(key)/\(index)") }
                default:
                    if !Self.constraintKeywords.contains(key) && !Self.annotationKeywords.contains(key) {
                        found.append("\(path): \(key)")
                    }
                }
            }
        }
        for (name, schema) in document["components"]?["schemas"]?.object ?? [:] {
            visitSchema(schema, "#/components/schemas/\(name)")
        }
        // Inline schemas of responses, request bodies and parameters.
        func visitAll(_ node: JSONValue, _ path: String) {
            switch node {
            case .object(let object):
                for (key, child) in object {
                    if key == "schema" {
                        visitSchema(child, "\(path)/schema")
                    } else {
                        visitAll(child, "\(path)/\(key)")
                    }
                }
            case .array(let items):
                for (index, item) in items.enumerated() { visitAll(item, "\(path)/\(index)") }
            default: break
            }
        }
        visitAll(document["paths"] ?? .null, "#/paths")
        visitAll(document["components"]?["responses"] ?? .null, "#/components/responses")
        visitAll(document["components"]?["parameters"] ?? .null, "#/components/parameters")
        return found.sorted()
    }

    static func excerpt(_ value: JSONValue) -> String {
        let text = value.description
        return text.count > 80 ? String(text.prefix(77)) + "…" : text
    }
}

extension JSONValue {
    var integer: Int? {
        if case .number(let value) = self, value.rounded() == value, abs(value) < 1e15 { return Int(value) }
        return nil
    }
}
