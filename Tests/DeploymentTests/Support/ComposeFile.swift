import Foundation
import Yams

/// docker-compose.yml read with Yams (anchors and `<<` merge keys resolved, `${…}` left as written).
struct ComposeFile: Sendable {
    struct Service: Sendable {
        var name: String
        var image: String?
        var buildContext: String?
        var dockerfile: String?
        var command: [String]
        var entrypoint: [String]
        var environment: [String: String]
        /// depends_on: service → condition (`service_started` for the short form).
        var dependsOn: [String: String]
        var ports: [String]
        var volumes: [String]
        var secrets: [String]
        var profiles: [String]
        /// The healthcheck's test, `nil` when the service declares none; `disabled` when it says `disable: true`.
        var healthcheckTest: [String]?
        var healthcheckDisabled: Bool
        var restart: String?
        var containerName: String?
        var memoryLimit: String?

        /// Built from the repository's Dockerfile: the image holding our executables.
        var usesProjectImage: Bool { dockerfile == ComposeFile.projectDockerfile }
        var hasProfile: Bool { !profiles.isEmpty }
        var isOneShot: Bool { restart == "no" }
        /// Every word of entrypoint + command (a `sh -c` string is split on spaces).
        var words: [String] {
            (entrypoint + command).flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\"" }).map(String.init) }
        }
    }

    static let path = "docker-compose.yml"
    static let projectDockerfile = "deploy/Dockerfile"

    let text: String
    let services: [String: Service]
    let secrets: [String: String]  // name → file
    let volumes: Set<String>

    static func load() throws -> ComposeFile {
        let text = try Repository.text(path)
        guard let root = try Yams.load(yaml: text) as? [String: Any] else { throw LoadError("not a mapping") }
        guard let services = root["services"] as? [String: Any] else { throw LoadError("no services") }
        var parsed: [String: Service] = [:]
        for (name, value) in services {
            guard let body = value as? [String: Any] else { throw LoadError("service \(name) is not a mapping") }
            parsed[name] = try Service(name: name, body: body)
        }
        var secrets: [String: String] = [:]
        for (name, value) in root["secrets"] as? [String: Any] ?? [:] {
            secrets[name] = (value as? [String: Any])?["file"] as? String ?? ""
        }
        let volumes = Set((root["volumes"] as? [String: Any] ?? [:]).keys)
        return ComposeFile(text: text, services: parsed, secrets: secrets, volumes: volumes)
    }

    subscript(name: String) -> Service? { services[name] }

    /// The services that run one of our executables, by program name (auth, posts, …, sns-admin).
    func program(of service: Service) -> String? {
        guard service.usesProjectImage else { return nil }
        return service.words.first { ProgramCatalog.sources.keys.contains($0) }
    }

    /// Names used as `${NAME}`, `${NAME:-default}` or `${NAME:?message}` (not the escaped `$${…}`).
    var interpolatedVariables: Set<String> {
        Set(Pattern.captures(#"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)"#, in: text))
    }

    struct LoadError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = "docker-compose.yml: \(description)" }
    }
}

extension ComposeFile.Service {
    init(name: String, body: [String: Any]) throws {
        self.name = name
        image = body["image"] as? String
        let build = body["build"] as? [String: Any]
        buildContext = build?["context"] as? String
        dockerfile = build?["dockerfile"] as? String
        command = Self.words(body["command"])
        entrypoint = Self.words(body["entrypoint"])
        environment = Self.environment(body["environment"])
        if let list = body["depends_on"] as? [String] {
            dependsOn = Dictionary(uniqueKeysWithValues: list.map { ($0, "service_started") })
        } else {
            var conditions: [String: String] = [:]
            for (target, value) in body["depends_on"] as? [String: Any] ?? [:] {
                conditions[target] = (value as? [String: Any])?["condition"] as? String ?? "service_started"
            }
            dependsOn = conditions
        }
        ports = (body["ports"] as? [Any] ?? []).map { "\($0)" }
        volumes = (body["volumes"] as? [Any] ?? []).map { "\($0)" }
        secrets = (body["secrets"] as? [Any] ?? []).compactMap { item in
            (item as? String) ?? ((item as? [String: Any])?["source"] as? String)
        }
        profiles = body["profiles"] as? [String] ?? []
        let healthcheck = body["healthcheck"] as? [String: Any]
        healthcheckDisabled = healthcheck?["disable"] as? Bool ?? false
        healthcheckTest = healthcheck?["test"].map { Self.words($0) }
        restart = body["restart"] as? String
        containerName = body["container_name"] as? String
        let deploy = body["deploy"] as? [String: Any]
        let limits = (deploy?["resources"] as? [String: Any])?["limits"] as? [String: Any]
        memoryLimit = limits?["memory"].map { "\($0)" }
    }

    private static func words(_ value: Any?) -> [String] {
        switch value {
        case let list as [Any]: list.map { "\($0)" }
        case let string as String: string.split(separator: " ").map(String.init)
        default: []
        }
    }

    private static func environment(_ value: Any?) -> [String: String] {
        if let map = value as? [String: Any] {
            return map.mapValues { "\($0)" }
        }
        var result: [String: String] = [:]
        for item in value as? [String] ?? [] {
            let parts = item.split(separator: "=", maxSplits: 1)
            result[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return result
    }
}
