import Foundation
import SNSTestSupport

/// The release-build loop `for product in …; do swift build …; done`, as written in .ci/run and in the
/// Dockerfile's build stage (line continuations and line breaks do not matter).
struct BuildLoop: Equatable, CustomStringConvertible {
    /// The words after `in`, as written (e.g. a `$(sed … Package.swift)` that lists the products).
    var list: String
    var command: String

    var description: String { "for product in \(list); do \(command); done" }

    /// The products the loop visits: its list as bash expands it in the repository's root.
    func products() throws -> [String] { try Self.expand(list) }

    static func expand(_ list: String) throws -> [String] {
        let shell = try ChildProcess.spawn(
            "/bin/bash", arguments: ["-c", "cd \"$0\" && printf '%s\\n' \(list)", Repository.root.path],
            environment: ["PATH": "/usr/bin:/bin"], standardOutput: .pipe)
        let output = String(decoding: shell.standardOutput?.readAllRetryingInterrupts() ?? Data(), as: UTF8.self)
        guard shell.waitUntilExit() == .exited(0) else { throw ExpansionError(list: list) }
        return output.split(separator: "\n").map(String.init)
    }

    struct ExpansionError: Error { var list: String }

    /// The loops over `product` in a shell script or Dockerfile, in order.
    static func all(in text: String) -> [BuildLoop] {
        let flat = text.replacingOccurrences(of: "\\\n", with: " ")
            .replacingOccurrences(of: "\n", with: " ")
        let pattern = #"for product in (.+?);\s*do\s+(.+?)\s*;?\s+done"#
        return Pattern.matches(pattern, in: flat).compactMap { groups in
            guard let list = groups[0], let command = groups[1] else { return nil }
            return BuildLoop(
                list: list.split(separator: " ").joined(separator: " "),
                command: command.split(separator: " ").joined(separator: " "))
        }
    }
}
