import Foundation

/// Typed, validated access to environment variables.
/// Every accessor throws `ConfigurationError` naming the variable when a value is missing or malformed.
package struct Environment: Sendable {
    package let values: [String: String]

    package init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// The raw value, with surrounding whitespace removed; empty counts as unset.
    package func optionalString(_ name: String) -> String? {
        guard let raw = values[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
        return raw
    }

    package func string(_ name: String) throws -> String {
        guard let value = optionalString(name) else {
            throw ConfigurationError(variable: name, reason: "is required but not set")
        }
        return value
    }

    package func string(_ name: String, default defaultValue: String) -> String {
        optionalString(name) ?? defaultValue
    }

    package func int(_ name: String, default defaultValue: Int, range: ClosedRange<Int>) throws -> Int {
        guard let raw = optionalString(name) else { return defaultValue }
        guard let value = Int(raw) else {
            throw ConfigurationError(variable: name, reason: "must be a whole number, got '\(raw)'")
        }
        guard range.contains(value) else {
            throw ConfigurationError(
                variable: name, reason: "must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return value
    }

    package func bool(_ name: String, default defaultValue: Bool) throws -> Bool {
        guard let raw = optionalString(name)?.lowercased() else { return defaultValue }
        switch raw {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(variable: name, reason: "must be true or false, got '\(raw)'")
        }
    }

    /// An http(s) base URL (default when unset), without a trailing slash.
    package func httpURL(_ name: String, default defaultValue: String) throws -> String {
        let raw = string(name, default: defaultValue)
        guard let url = URL(string: raw), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil
        else {
            throw ConfigurationError(variable: name, reason: "must be an http(s) URL")
        }
        return raw.hasSuffix("/") ? String(raw.dropLast()) : raw
    }

    /// A secret given inline (`NAME`) or as a file path (`NAME_FILE`, the Docker-secrets convention).
    /// Exactly one of them must be set. The value itself is never part of an error message.
    package func secret(_ name: String) throws -> String {
        let inline = optionalString(name)
        let path = optionalString(name + "_FILE")
        switch (inline, path) {
        case (let value?, nil):
            return value
        case (nil, let path?):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(variable: name + "_FILE", reason: "names a file that cannot be read: \(path)")
            }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else {
                throw ConfigurationError(variable: name + "_FILE", reason: "names an empty file: \(path)")
            }
            return text
        case (.some, .some):
            throw ConfigurationError(variable: name, reason: "and \(name)_FILE are both set; set only one")
        case (nil, nil):
            throw ConfigurationError(variable: name, reason: "(or \(name)_FILE) is required but not set")
        }
    }
}
