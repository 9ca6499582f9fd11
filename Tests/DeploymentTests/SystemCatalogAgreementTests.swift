import Foundation
import SNSAdmin
import SNSPlatform
import SNSTestSupport
import Testing

/// The system catalog (Shared/Contract/SystemCatalog.swift) is the one place that names the services, their schemas,
/// consumer groups and topics. Everything that cannot read it at run time must agree with it; everything that can,
/// must read it. (Compose's roles, topics and gateway are checked against it in InfrastructureTests, GatewayTests and
/// MonitoringTests, through `ProgramCatalog.services`, which is the catalog's list.)
@Suite("The system catalog and the places that must agree with it")
struct SystemCatalogAgreementTests {
    @Test func namesSchemasPortsAndGroupsAreUnique() {
        let services = SystemCatalog.services
        #expect(Set(services.map(\.name)).count == services.count)
        #expect(Set(services.map(\.schema)).count == services.count)
        #expect(Set(services.map(\.localPortOffset)).count == services.count)
        #expect(services.allSatisfy { $0.localPortOffset > 0 && $0.localPortOffset < 100 })
        let groups = SystemCatalog.consumers.map(\.group)
        #expect(Set(groups).count == groups.count, "\(groups)")
        let rebuilds = SystemCatalog.consumers.compactMap(\.rebuild?.name)
        #expect(Set(rebuilds).count == rebuilds.count, "\(rebuilds)")
    }

    /// Consumers read only catalogued topics; a rebuild touches only its owner's schema.
    @Test func consumersReadCataloguedTopicsAndRebuildTheirOwnSchema() {
        let topics = Set(Topic.catalog.map(\.name))
        for service in SystemCatalog.services {
            for consumer in service.consumers {
                #expect(
                    !consumer.topics.isEmpty && Set(consumer.topics).isSubset(of: topics),
                    "\(consumer.group): \(consumer.topics)")
                #expect(!consumer.topics.contains(Topic.deadLetter), "\(consumer.group) reads the dead-letter topic")
                guard let rebuild = consumer.rebuild else { continue }
                #expect(!rebuild.tables.isEmpty && !rebuild.clear.isEmpty)
                for table in rebuild.tables {
                    #expect(table.hasPrefix(service.schema + "."), "\(rebuild.name) summarises \(table)")
                }
                for statement in rebuild.clear {
                    let named = Pattern.captures(
                        #"(?:TRUNCATE|UPDATE|DELETE FROM|,)\s+([a-z_]+)\.[a-z_]+"#, in: statement)
                    #expect(
                        !named.isEmpty && named.allSatisfy { $0 == service.schema }, "\(rebuild.name): \(statement)")
                }
            }
        }
        // Every event topic is read by somebody (the dead-letter topic by the operator).
        let read = Set(SystemCatalog.consumers.flatMap(\.topics))
        #expect(
            read.union([Topic.deadLetter, Topic.media]) == topics,
            "topics nobody consumes: \(topics.subtracting(read))"
        )
    }

    /// Each catalogued service is a package product built from `Services/<Name>/App` and `Services/<Name>/Main`;
    /// every folder under Services/ is catalogued.
    @Test func everyServiceFolderIsCataloguedAndBuilt() throws {
        let package = try Repository.text("Package.swift")
        let products = try ProgramCatalog.executableProducts()
        for service in SystemCatalog.services {
            let folder = ProgramCatalog.serviceFolder(service.name)
            #expect(products.contains(service.name), "Package.swift has no executable product \(service.name)")
            #expect(package.contains("path: \"\(folder)/App\""), "Package.swift builds nothing from \(folder)/App")
            #expect(package.contains("path: \"\(folder)/Main\""), "Package.swift builds nothing from \(folder)/Main")
        }
        let folders = try FileManager.default.contentsOfDirectory(atPath: Repository.url("Services").path)
            .filter { !$0.hasPrefix(".") }
        let catalogued = Set(SystemCatalog.services.map { ProgramCatalog.serviceFolder($0.name) })
        #expect(Set(folders.map { "Services/" + $0 }) == catalogued, "Services/ holds \(folders.sorted())")
    }

    /// The services take their consumer groups from the catalog: no Swift source outside the contract spells a
    /// group's name (tests and the operator's help texts may, as examples).
    @Test func servicesDoNotSpellConsumerGroups() throws {
        for service in SystemCatalog.services {
            let folder = ProgramCatalog.serviceFolder(service.name)
            for file in Repository.files(under: folder, suffix: ".swift") {
                let text = try Repository.text(file)
                for group in SystemCatalog.consumers.map(\.group) {
                    #expect(!text.contains("\"\(group)\""), "\(file) spells the consumer group \(group)")
                }
            }
        }
    }

    /// The local stack runs what `sns-admin catalog --ports` prints and lists no service of its own.
    @Test func theLocalStackReadsTheCatalog() throws {
        let script = try Repository.text("deploy/local/lib.sh")
        #expect(script.contains("\"$BIN/sns-admin\" catalog --ports"))
        for service in SystemCatalog.services {
            #expect(
                !script.contains("\"\(service.name):\(service.localPortOffset)\""),
                "lib.sh lists \(service.name) itself")
        }
    }

    /// The deployment files' catalog regions (compose's database roles and the gateway's dependencies, the
    /// gateway's routes and upstreams, Prometheus's targets, `.env.example`'s passwords) are what the catalog says.
    @Test func theDeploymentFilesRegionsAreTheCatalogs() throws {
        let stale = try DeploymentFiles.sync(root: Repository.root, write: false)
        #expect(stale.isEmpty, "\(stale) repeat an older catalog: run ./sns sync-deployment")
    }

    /// A region is replaced between its markers, keeping the opening marker's indentation and everything else.
    @Test func aRegionIsRewrittenBetweenItsMarkersOnly() throws {
        let text = "a:\n  # >>> catalog: r (note)\n  old\n  # <<< catalog: r\nb"
        let region = DeploymentFiles.Region(file: "f", name: "r", lines: ["x: 1", "", "y: 2"])
        #expect(
            try DeploymentFiles.apply(region, to: text)
                == "a:\n  # >>> catalog: r (note)\n  x: 1\n\n  y: 2\n  # <<< catalog: r\nb")
        #expect(throws: DeploymentFiles.Failure.self) {
            try DeploymentFiles.apply(DeploymentFiles.Region(file: "f", name: "other", lines: []), to: text)
        }
    }

    /// Adding a service touches at most four places, and docs/operations.md names them.
    @Test func addingAServiceIsDocumented() throws {
        let operations = try Repository.text("docs/operations.md")
        let section = try #require(
            operations.components(separatedBy: "## Adding a service").dropFirst().first,
            "docs/operations.md has no \"## Adding a service\" section")
        let steps = section.components(separatedBy: "\n## ")[0].split(separator: "\n").filter {
            $0.first?.isNumber == true
        }
        #expect(steps.count <= 4 && steps.count >= 3, "\(steps.count) steps")
        #expect(
            section.contains("SystemCatalog.swift") && section.contains("Package.swift")
                && section.contains("docker-compose.yml"))
    }
}
