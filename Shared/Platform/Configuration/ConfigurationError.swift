/// A missing or malformed configuration value. The message always names the environment variable,
/// so an operator can fix the deployment without reading code. Values are never echoed (they may be secrets).
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let variable: String
    public let reason: String

    public init(variable: String, reason: String) {
        self.variable = variable
        self.reason = reason
    }

    public var description: String { "configuration error: \(variable) \(reason)" }
}
