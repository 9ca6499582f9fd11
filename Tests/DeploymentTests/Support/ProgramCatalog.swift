import Foundation
import SNSPlatform

/// The package's executables and where the code that configures each one lives.
enum ProgramCatalog {
    /// Executable product → folders whose Swift sources read its environment. Services share the platform's
    /// configuration (Shared/Platform). A test fails when Package.swift gains a product missing here.
    static let sources: [String: [String]] = Dictionary(
        uniqueKeysWithValues: services.map {
            ($0, [serviceFolder($0), "Shared/Platform"])
        }
    ).merging([
        "sns-admin": ["Tools/Admin"],
        "sns-portone-test-server": ["Tools/PortOneTestServer"],
        "sns-idp-test-server": ["Tools/IdentityProviderTestServer"],
        "sns-dev-broker": ["Tools/DevBroker"],
        "sns-bench": ["Tools/Bench"],
    ]) { _, tool in tool }

    /// The HTTP services: configured through `Environment` (required vs. optional is known), each with
    /// `/health`, `/ready` and `/metrics`, each scalable.
    /// They are the system catalog's services.
    static let services = SystemCatalog.services.map(\.name)

    /// Where a service's code lives: `Services/<Name>` (e.g. `Services/Posts` for `posts`).
    static func serviceFolder(_ name: String) -> String { "Services/" + name.prefix(1).uppercased() + name.dropFirst() }

    /// Executables that no compose service runs, and why (decision 0009 says the same).
    static let notDeployed: [String: String] = [
        "sns-dev-broker":
            "compose runs Apache Kafka; the in-memory dev broker stands in for it only where no Docker engine runs",
        "sns-bench": "the benchmark tool runs beside a stack (bench/README.md), not in it",
    ]

    /// `.executable(name: "…")` products of Package.swift.
    static func executableProducts() throws -> [String] {
        Pattern.captures(#"\.executable\(\s*name:\s*"([^"]+)""#, in: try Repository.text("Package.swift"))
    }
}

/// The SNS_* variables a program reads, found by scanning its sources.
///
/// Services read configuration through `Environment` (Shared/Platform/Configuration/Environment.swift):
/// `env.string("X")` and `env.secret("X")` are required (a secret may come as `X` or `X_FILE`); `string(_:default:)`,
/// `int`, `bool`, `httpURL` and `optionalString` are optional. The tools read `ProcessInfo…environment["X"]`,
/// always with a fallback, so their variables count as optional.
struct ConfigurationScan: Sendable {
    struct Read: Sendable, Equatable {
        var name: String
        var required: Bool
        /// Read with `secret`: `X_FILE` is accepted instead of `X`.
        var secret: Bool
    }

    var reads: [String: Read]
    /// Every "SNS_…" string literal in the scanned sources (error messages name variables too).
    var literals: Set<String>

    var names: Set<String> { Set(reads.keys) }
    var required: [Read] { reads.values.filter(\.required).sorted { $0.name < $1.name } }

    init(directories: [String]) throws {
        var reads: [String: Read] = [:]
        var literals: Set<String> = []
        let environmentCall =
            #"\benv(?:ironment)?\.(string|secret|int|bool|httpURL|optionalString)\(\s*"(SNS_[A-Z0-9_]+)"\s*(\))?"#
        let dictionaryRead = #"environment\["(SNS_[A-Z0-9_]+)"\]"#
        for directory in directories {
            for file in Repository.files(under: directory, suffix: ".swift") {
                let text = try Repository.text(file)
                for match in Pattern.matches(environmentCall, in: text) {
                    guard let method = match[0], let name = match[1] else { continue }
                    let required = method == "secret" || (method == "string" && match[2] != nil)
                    let read = Read(
                        name: name, required: required || reads[name]?.required == true,
                        secret: method == "secret" || reads[name]?.secret == true)
                    reads[name] = read
                }
                for name in Pattern.captures(dictionaryRead, in: text) where reads[name] == nil {
                    reads[name] = Read(name: name, required: false, secret: false)
                }
                literals.formUnion(Pattern.captures(#""(SNS_[A-Z0-9_]+)""#, in: text))
            }
        }
        self.reads = reads
        self.literals = literals
    }

    /// Whether `variable` (as set in an environment) is one this program reads: the name itself, or the
    /// `_FILE` form of a secret.
    func reads(_ variable: String) -> Bool {
        if reads[variable] != nil { return true }
        guard variable.hasSuffix("_FILE") else { return false }
        return reads[String(variable.dropLast("_FILE".count))]?.secret == true
    }
}
