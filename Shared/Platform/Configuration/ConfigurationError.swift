/// A missing or malformed configuration value. The message always names the environment variable,
/// so an operator can fix the deployment without reading code. Values are never echoed (they may be secrets).
package struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    package let variable: String
    package let reason: String

    package init(variable: String, reason: String) {
        self.variable = variable
        self.reason = reason
    }

    package var description: String { "configuration error: \(variable) \(reason)" }
}
