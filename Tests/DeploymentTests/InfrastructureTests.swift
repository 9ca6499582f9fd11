import Foundation
import SNSAdmin
import SNSPlatform
import SNSTestSupport
import Testing

/// Kafka's topics and PostgreSQL's roles and schemas as compose creates them, against the code's catalogs.
@Suite("Kafka topics and PostgreSQL roles in docker-compose.yml")
struct InfrastructureTests {
    let compose: ComposeFile

    init() throws { compose = try ComposeFile.load() }

    @Test func kafkaInitCreatesTheEventCatalogsTopics() throws {
        let initStep = try #require(compose["kafka-init"])
        let topics = try #require(initStep.environment["TOPICS"]).split(separator: " ").map { spec in
            let parts = spec.split(separator: ":")
            return "\(parts[0]):\(parts.count > 1 ? parts[1] : "?")"
        }
        let catalog = Topic.catalog.map { "\($0.name):\($0.partitions)" }
        #expect(topics == catalog, "kafka-init TOPICS \(topics) ≠ Topic.catalog \(catalog)")
        #expect(initStep.command == ["bash", "/opt/sns/create-topics.sh"])
        #expect(initStep.volumes.contains("./deploy/kafka/create-topics.sh:/opt/sns/create-topics.sh:ro"))
        #expect(initStep.image == compose["kafka"]?.image, "the init step uses the broker's own kafka-topics.sh")
    }

    @Test func brokerIsKRaftAndCreatesNoTopicsByItself() throws {
        let kafka = try #require(compose["kafka"])
        #expect(kafka.image?.hasPrefix("apache/kafka:") == true)
        #expect(kafka.environment["KAFKA_PROCESS_ROLES"] == "broker,controller")
        #expect(kafka.environment["KAFKA_AUTO_CREATE_TOPICS_ENABLE"] == "false")
        #expect(kafka.environment["KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR"] == "1")
        #expect(
            kafka.environment["KAFKA_LOG_DIRS"].map { dir in kafka.volumes.contains { $0.hasSuffix(":" + dir) } }
                == true,
            "the log directory is on a volume")
    }

    /// Each service connects as its own role, which owns exactly the schema the service migrates: the postgres
    /// container is told the catalog's services, and the init script (run here with a stand-in psql that records
    /// its arguments and input) creates a role and a schema for each, with the password compose passes.
    @Test func everyServiceHasItsOwnRoleOwningItsSchema() throws {
        let postgres = try #require(compose["postgres"])
        #expect(
            postgres.volumes.contains {
                $0.hasPrefix("./deploy/postgres/10-sns-roles-and-schemas.sh:/docker-entrypoint-initdb.d/")
            })
        #expect(
            postgres.environment["SNS_SERVICES"] == SystemCatalog.services.map(\.name).joined(separator: " "),
            "the postgres container's SNS_SERVICES is not the catalog's services")
        var environment = [
            "PATH": "", "POSTGRES_DB": "sns", "SNS_SERVICES": try #require(postgres.environment["SNS_SERVICES"]),
        ]
        var roles: Set<String> = []
        for catalogued in SystemCatalog.services {
            #expect(catalogued.schema == catalogued.name, "the init script names each schema after its service")
            let service = try #require(compose[catalogued.name], "no compose service for \(catalogued.name)")
            let url = try #require(service.environment["SNS_DATABASE_URL"])
            let (role, passwordVariable) = try databaseLogin(url)
            roles.insert(role)
            #expect(role == catalogued.name, "\(catalogued.name) logs in as \(role)")
            #expect(url.contains("@postgres:5432/${POSTGRES_DB:-sns}"), "\(url)")
            #expect(passwordVariable == catalogued.name.uppercased() + "_DB_PASSWORD")
            #expect(
                postgres.environment[passwordVariable] == "${\(passwordVariable):?set \(passwordVariable) in .env}",
                "the postgres container does not get \(passwordVariable)")
            environment[passwordVariable] = "secret-of-\(role)"
        }
        #expect(roles.count == SystemCatalog.services.count, "services share a role: \(roles)")
        let admin = try #require(compose["admin"]?.environment["SNS_DATABASE_URL"])
        let (adminRole, adminPassword) = try databaseLogin(admin)
        #expect(postgres.environment[adminPassword] != nil)
        environment[adminPassword] = "secret-of-admin"

        let run = try RolesScriptRun(environment: environment)
        try #require(run.status == 0, "the init script failed: \(run.output)")
        let sql = Pattern.replacing("[ \\t]+", in: run.input, with: " ")
        for service in SystemCatalog.services {
            #expect(sql.contains("CREATE ROLE \(service.name) LOGIN PASSWORD :'\(service.name)_password';"), "\(sql)")
            #expect(sql.contains("CREATE SCHEMA \(service.schema) AUTHORIZATION \(service.name);"))
            #expect(run.arguments.contains("\(service.name)_password=secret-of-\(service.name)"), "\(run.arguments)")
        }
        // The operator tool's role owns its own schema (ops) and acts as every service.
        #expect(sql.contains("CREATE SCHEMA ops AUTHORIZATION \(adminRole);"))
        #expect(sql.contains("GRANT \(SystemCatalog.services.map(\.name).joined(separator: ", ")) TO \(adminRole);"))
        // Social's trigram index needs pg_trgm, which only the superuser may create in schema public.
        #expect(sql.contains("CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;"))

        // A missing password stops the initialisation with the variable's name.
        environment["POSTS_DB_PASSWORD"] = nil
        let failed = try RolesScriptRun(environment: environment)
        #expect(failed.status != 0 && failed.output.contains("POSTS_DB_PASSWORD is not set"))
    }

    /// `postgres://role:${PASSWORD_VARIABLE…}@host:port/db` → (role, PASSWORD_VARIABLE).
    private func databaseLogin(_ url: String) throws -> (String, String) {
        let groups = try #require(
            Pattern.matches(#"^postgres://([a-z_]+):\$\{([A-Z_]+)[:?}]"#, in: url).first, "\(url)")
        return (try #require(groups[0]), try #require(groups[1]))
    }
}

/// deploy/postgres/10-sns-roles-and-schemas.sh run with a stand-in psql that records its arguments and its input.
struct RolesScriptRun {
    var status: Int32
    var arguments: [String]
    var input: String
    var output: String

    init(environment: [String: String]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sns-roles-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let psql = directory.appendingPathComponent("psql")
        try "#!/bin/bash\nprintf '%s\\n' \"$@\" >\"$STUB_STATE/arguments\"\ncat >\"$STUB_STATE/input\"\n"
            .write(to: psql, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: psql.path)
        var environment = environment
        environment["PATH"] = "\(directory.path):/usr/bin:/bin"
        environment["STUB_STATE"] = directory.path
        let log = directory.appendingPathComponent("output").path
        let process = try ChildProcess.spawn(
            "/bin/bash", arguments: [Repository.url("deploy/postgres/10-sns-roles-and-schemas.sh").path],
            environment: environment, standardOutput: .file(log), standardError: .file(log))
        status =
            switch process.waitUntilExit() {
            case .exited(let code): code
            case .signalled(let number): 128 + number
            }
        func read(_ name: String) -> String {
            (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
        }
        arguments = read("arguments").split(separator: "\n").map(String.init)
        input = read("input")
        output = read("output")
    }
}
