import PostgresNIO

/// A PostgreSQL identifier (schema name) that is safe to splice into SQL text.
///
/// Identifiers cannot be bound as parameters, so the few places that need a schema name in SQL text
/// (shared platform tables that live in each service's schema) accept only this type, which admits
/// lower-case letters, digits and underscores. Values always come from code, never from requests.
package struct SQLIdentifier: Sendable, Hashable, CustomStringConvertible {
    package let name: String

    package init(_ name: String) throws {
        let valid =
            !name.isEmpty && name.count <= 48
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
            && !(name.unicodeScalars.first.map { ("0"..."9").contains($0) } ?? true)
        guard valid else {
            throw ConfigurationError(variable: "schema", reason: "'\(name)' is not a plain lower-case identifier")
        }
        self.name = name
    }

    package var description: String { name }

    /// `"schema"."table"` for SQL text.
    package func table(_ table: String) -> String { "\"\(name)\".\"\(table)\"" }
}

extension PostgresQuery.StringInterpolation {
    /// Splices a validated identifier into the SQL text (not a bind).
    package mutating func appendInterpolation(table schema: SQLIdentifier, _ table: String) {
        self.appendInterpolation(unescaped: schema.table(table))
    }
}
