import ArgumentParser
import Foundation
import SNSAdmin
import SNSPlatform

/// `sns-admin catalog`: the system catalog (services, schemas, consumer groups, topics) as this build knows it.
/// `./sns` reads `--ports` to know which services to run; scripts can read `--json`.
struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Print the system catalog: services, schemas, consumer groups, topics (needs no database or broker).")

    @Flag(help: "Print JSON on stdout.") var json = false
    @Flag(help: "Print one `name:port-offset` line per service, in start order (what ./sns reads).") var ports = false
    @Option(
        help: ArgumentHelp(
            "Rewrite the catalog's regions in the deployment files of this repository (./sns sync-deployment).",
            valueName: "repository"))
    var syncDeployment: String?

    struct Document: Encodable {
        struct Service: Encodable {
            var name: String, schema: String, localPortOffset: Int, consumers: [Consumer]
            enum CodingKeys: String, CodingKey { case name, schema, localPortOffset = "local_port_offset", consumers }
        }
        struct Consumer: Encodable { var group: String, topics: [String], rebuildable: Bool }
        struct Topic: Encodable { var name: String, partitions: Int }
        var services: [Service]
        var topics: [Topic]
    }

    func run() throws {
        if let syncDeployment {
            let changed = try DeploymentFiles.sync(root: URL(fileURLWithPath: syncDeployment), write: true)
            let summary = changed.isEmpty ? "the deployment files agree with the catalog" : "rewritten: \(changed)"
            print(summary)
            return
        }
        if ports {
            for service in SystemCatalog.services { print("\(service.name):\(service.localPortOffset)") }
            return
        }
        let document = Document(
            services: SystemCatalog.services.map { service in
                Document.Service(
                    name: service.name, schema: service.schema, localPortOffset: service.localPortOffset,
                    consumers: service.consumers.map {
                        Document.Consumer(group: $0.group, topics: $0.topics, rebuildable: $0.rebuild != nil)
                    })
            },
            topics: Topic.catalog.map { Document.Topic(name: $0.name, partitions: $0.partitions) })
        if json { return try Output.json(document) }
        Output.table(
            ["SERVICE", "SCHEMA", "PORT", "CONSUMER GROUP", "TOPICS"],
            document.services.flatMap { service in
                let base = [service.name, service.schema, "+\(service.localPortOffset)"]
                guard !service.consumers.isEmpty else { return [base + ["-", "-"]] }
                return service.consumers.map { base + [$0.group, $0.topics.joined(separator: ",")] }
            })
        print("")
        Output.table(["TOPIC", "PARTITIONS"], document.topics.map { [$0.name, "\($0.partitions)"] })
    }
}
