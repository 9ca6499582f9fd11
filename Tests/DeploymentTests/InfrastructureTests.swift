import Foundation
import SNSAdmin
import SNSPlatform
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
        #expect(kafka.environment["KAFKA_LOG_DIRS"].map { dir in kafka.volumes.contains { $0.hasSuffix(":" + dir) } } == true,
                "the log directory is on a volume")
    }

    /// Each service connects as its own role, which owns exactly the schema the service migrates.
    @Test func everyServiceHasItsOwnRoleOwningItsSchema() throws {
        let script = Pattern.replacing("[ \\t]+", in: try Repository.text("deploy/postgres/10-sns-roles-and-schemas.sh"), with: " ")
        let postgres = try #require(compose["postgres"])
        #expect(postgres.volumes.contains {
            $0.hasPrefix("./deploy/postgres/10-sns-roles-and-schemas.sh:/docker-entrypoint-initdb.d/")
        })
        var roles: Set<String> = []
        for catalogued in ServiceCatalog.services {
            let service = try #require(compose[catalogued.name], "no compose service for \(catalogued.name)")
            let url = try #require(service.environment["SNS_DATABASE_URL"])
            let (role, passwordVariable) = try databaseLogin(url)
            roles.insert(role)
            #expect(url.contains("@postgres:5432/${POSTGRES_DB:-sns}"), "\(url)")
            #expect(script.contains("CREATE ROLE \(role) "), "the init script creates no role \(role)")
            #expect(script.contains("CREATE SCHEMA \(catalogued.schema) AUTHORIZATION \(role);"),
                    "schema \(catalogued.schema) is not owned by \(role)")
            #expect(postgres.environment[passwordVariable] == "${\(passwordVariable):?set \(passwordVariable) in .env}",
                    "the postgres container does not get \(passwordVariable)")
            #expect(script.contains("$\(passwordVariable)"), "the init script ignores \(passwordVariable)")
        }
        #expect(roles.count == ServiceCatalog.services.count, "services share a role: \(roles)")
        // The operator tool's role owns its own schema (ops) and acts as every service.
        let admin = try #require(compose["admin"]?.environment["SNS_DATABASE_URL"])
        let (adminRole, _) = try databaseLogin(admin)
        #expect(script.contains("CREATE SCHEMA ops AUTHORIZATION \(adminRole);"))
        #expect(script.contains("GRANT \(ServiceCatalog.services.map(\.name).joined(separator: ", ")) TO \(adminRole);"))
        // Social's trigram index needs pg_trgm, which only the superuser may create in schema public.
        #expect(script.contains("CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;"))
    }

    /// `postgres://role:${PASSWORD_VARIABLE…}@host:port/db` → (role, PASSWORD_VARIABLE).
    private func databaseLogin(_ url: String) throws -> (String, String) {
        let groups = try #require(Pattern.matches(#"^postgres://([a-z_]+):\$\{([A-Z_]+)[:?}]"#, in: url).first, "\(url)")
        return (try #require(groups[0]), try #require(groups[1]))
    }
}
