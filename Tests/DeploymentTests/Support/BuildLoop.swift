import Foundation

/// The release-build loop `for product in …; do swift build …; done`, as written in .ci/run and in the
/// Dockerfile's build stage (line continuations and line breaks do not matter).
struct BuildLoop: Equatable, CustomStringConvertible {
    var products: [String]
    var command: String

    var description: String { "for product in \(products.joined(separator: " ")); do \(command); done" }

    /// The loops over `product` in a shell script or Dockerfile, in order.
    static func all(in text: String) -> [BuildLoop] {
        let flat = text.replacingOccurrences(of: "\\\n", with: " ")
            .replacingOccurrences(of: "\n", with: " ")
        let pattern = #"for product in ([^;]+);\s*do\s+(.+?)\s*;?\s+done"#
        return Pattern.matches(pattern, in: flat).compactMap { groups in
            guard let list = groups[0], let command = groups[1] else { return nil }
            return BuildLoop(
                products: list.split(separator: " ").map(String.init),
                command: command.split(separator: " ").joined(separator: " "))
        }
    }
}
