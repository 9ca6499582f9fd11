import Foundation
import Testing

/// Each container's SNS_* environment against what its program's code reads (scanned from the sources) and
/// what the local stack (deploy/local/lib.sh) passes.
@Suite("Service environment in docker-compose.yml")
struct ServiceEnvironmentTests {
    let compose: ComposeFile

    init() throws { compose = try ComposeFile.load() }

    /// The scan itself: known reads are found with the right kind, and no SNS_* name appears in the services'
    /// code that the scan did not recognise as a read (which would mean a read it cannot see).
    @Test func scanRecognisesEveryVariableTheServicesMention() throws {
        let platform = try ConfigurationScan(directories: ["Shared/Platform"])
        #expect(
            platform.reads["SNS_DATABASE_URL"]
                == ConfigurationScan.Read(name: "SNS_DATABASE_URL", required: true, secret: false))
        #expect(platform.reads["SNS_KAFKA_BROKERS"]?.required == true)
        #expect(
            platform.reads["SNS_API_KEY"] == ConfigurationScan.Read(name: "SNS_API_KEY", required: true, secret: true))
        #expect(platform.reads["SNS_JWT_PUBLIC_KEY"]?.secret == true)
        #expect(platform.reads["SNS_HTTP_HOST"]?.required == false)
        #expect(platform.reads["SNS_LOG_LEVEL"]?.required == false)
        #expect(platform.reads["SNS_KAFKA_PROPERTIES"]?.required == false)

        let all = try ConfigurationScan(
            directories: ["Shared/Platform"] + ProgramCatalog.services.map { "Services/\($0.capitalized)" })
        let unrecognised = all.literals.subtracting(all.names)
        #expect(
            unrecognised.isEmpty,
            "SNS_* names in service code that are not read through Environment: \(unrecognised.sorted())")
    }

    @Test(arguments: ProgramCatalog.services)
    func requiredVariablesAreSet(service name: String) throws {
        let service = try #require(compose[name])
        #expect(compose.program(of: service) == name)
        let scan = try ConfigurationScan(directories: try #require(ProgramCatalog.sources[name]))
        for read in scan.required {
            let inline = service.environment[read.name]
            let file = read.secret ? service.environment[read.name + "_FILE"] : nil
            #expect(
                inline != nil || file != nil,
                "\(name) requires \(read.name)\(read.secret ? " (or _FILE)" : "") but compose does not set it")
            #expect(inline == nil || file == nil, "\(name) sets both \(read.name) and \(read.name)_FILE")
            if let value = inline {
                #expect(!value.isEmpty, "\(name): \(read.name) is empty")
            }
        }
    }

    @Test(arguments: ProgramCatalog.services + ["admin", "portone"])
    func everySNSVariableIsReadByTheProgram(service name: String) throws {
        let service = try #require(compose[name])
        let program = try #require(compose.program(of: service), "\(name) runs none of our executables")
        let scan = try ConfigurationScan(directories: try #require(ProgramCatalog.sources[program]))
        for variable in service.environment.keys where variable.hasPrefix("SNS_") {
            #expect(scan.reads(variable), "\(name) sets \(variable), which \(program) never reads")
        }
        #expect(!service.environment.keys.contains { $0.hasPrefix("SNS_TEST_") })
    }

    @Test(arguments: ProgramCatalog.services)
    func secretsArriveAsFilesNeverInline(service name: String) throws {
        let service = try #require(compose[name])
        let scan = try ConfigurationScan(directories: try #require(ProgramCatalog.sources[name]))
        for read in scan.reads.values where read.secret && read.name != "SNS_API_KEY" {
            #expect(
                service.environment[read.name] == nil,
                "\(name) gets \(read.name) inline; use \(read.name)_FILE with a compose secret")
        }
        for (variable, value) in service.environment where variable.hasSuffix("_FILE") {
            let secret = value.replacingOccurrences(of: "/run/secrets/", with: "")
            #expect(
                value.hasPrefix("/run/secrets/") && service.secrets.contains(secret),
                "\(name): \(variable)=\(value) is not one of its compose secrets \(service.secrets)")
        }
    }

    /// The local stack's `service_env` is the reference configuration: compose passes at least the same names.
    @Test(arguments: ProgramCatalog.services)
    func passesWhatTheLocalStackPasses(service name: String) throws {
        let local = try LocalStackEnvironment.variables(of: name)
        #expect(local.contains("SNS_DATABASE_URL") && local.contains("SNS_API_KEY"), "lib.sh parse: \(local.sorted())")
        let service = try #require(compose[name])
        let missing = local.subtracting(service.environment.keys)
        #expect(missing.isEmpty, "lib.sh passes \(missing.sorted()) to \(name); docker-compose.yml does not")
    }

    @Test func internalURLsAndBrokersNameComposeServicesAndPorts() throws {
        for (name, variable) in [("social", "SNS_AUTH_URL"), ("social", "SNS_MEDIA_URL"), ("posts", "SNS_MEDIA_URL")] {
            let service = try #require(compose[name])
            let url = try #require(service.environment[variable].flatMap(URL.init(string:)), "\(name): \(variable)")
            let target = try #require(compose[url.host ?? ""], "\(name): \(variable) names no compose service")
            #expect(url.port.map(String.init) == target.environment["SNS_HTTP_PORT"], "\(name): \(variable)")
        }
        let kafka = try #require(compose["kafka"])
        let advertised = try #require(kafka.environment["KAFKA_ADVERTISED_LISTENERS"])
        for service in compose.services.values where service.environment["SNS_KAFKA_BROKERS"] != nil {
            #expect(advertised == "PLAINTEXT://" + (service.environment["SNS_KAFKA_BROKERS"] ?? ""), "\(service.name)")
        }
        for name in ProgramCatalog.services {
            #expect(compose[name]?.environment["SNS_HTTP_HOST"] == "0.0.0.0", "\(name) listens on loopback only")
            #expect(compose[name]?.environment["SNS_HTTP_PORT"] == "8080", "\(name)")
        }
    }
}

/// `service_env()` of deploy/local/lib.sh: the variables every service gets, plus its `case` branch.
enum LocalStackEnvironment {
    static func variables(of service: String) throws -> Set<String> {
        let script = try Repository.text("deploy/local/lib.sh")
        guard let start = script.range(of: "service_env() {"),
            let end = script.range(of: "\n}\n", range: start.upperBound..<script.endIndex)
        else {
            throw ComposeFile.LoadError("deploy/local/lib.sh has no service_env() function")
        }
        let body = String(script[start.upperBound..<end.lowerBound])
        let parts = body.components(separatedBy: "case \"$name\" in")
        let names = { (text: String) in Set(Pattern.captures(#"\b(SNS_[A-Z0-9_]+)="#, in: text)) }
        var result = names(parts[0])
        if parts.count > 1 {
            for branch in Pattern.matches(#"(?s)\n\s*([a-z|]+)\)(.*?);;"#, in: parts[1]) {
                guard let labels = branch[0], let text = branch[1] else { continue }
                if labels.split(separator: "|").contains(where: { $0 == service }) { result.formUnion(names(text)) }
            }
        }
        return result
    }
}
