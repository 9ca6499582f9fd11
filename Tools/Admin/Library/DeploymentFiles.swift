import Foundation
import SNSPlatform

/// The parts of the deployment files that only repeat the system catalog: each lies between two marker comments,
///
///     # >>> catalog: <region>  (written by `./sns sync-deployment`; edit Shared/Contract/SystemCatalog.swift)
///     …
///     # <<< catalog: <region>
///
/// and `sns-admin catalog --sync-deployment` rewrites what lies between them (indented like the opening marker).
/// The deployment tests compare every region with the catalog (and `Topic.catalog`), so a service added to the
/// catalog but not synced fails the suite, naming the command. Adding a service is then four places (docs/operations.md).
package enum DeploymentFiles {
    package struct Region: Sendable, Equatable {
        package let file: String
        package let name: String
        package let lines: [String]

        package init(file: String, name: String, lines: [String]) {
            self.file = file
            self.name = name
            self.lines = lines
        }
    }

    package enum Failure: Error, CustomStringConvertible {
        case missingMarkers(file: String, region: String)

        package var description: String {
            switch self {
            case .missingMarkers(let file, let region):
                "\(file) has no region \"\(region)\" (a line \"# >>> catalog: \(region)\" and one \"# <<< catalog: \(region)\")"
            }
        }
    }

    /// Every generated region, from `services` (the catalog's, in start order).
    package static func regions(services: [SystemCatalog.Service] = SystemCatalog.services) -> [Region] {
        let names = services.map(\.name)
        let socketServices = services.filter { $0.routes.contains(where: \.socket) }.map(\.name)
        func passwordVariable(_ name: String) -> String { name.uppercased() + "_DB_PASSWORD" }
        func passwordEntry(_ name: String) -> String {
            let variable = passwordVariable(name)
            return "\(variable): ${\(variable):?set \(variable) in .env}"
        }
        return [
            // The postgres container's roles script: a role and a schema per service, each with its password.
            Region(
                file: "docker-compose.yml", name: "database-roles",
                lines: ["SNS_SERVICES: \(names.joined(separator: " "))"]
                    + names.map(passwordEntry)),
            // The topics kafka-init creates (Shared/Contract/Events/EventCatalog.swift).
            Region(
                file: "docker-compose.yml", name: "topics",
                lines: ["TOPICS: \"\(Topic.catalog.map { "\($0.name):\($0.partitions)" }.joined(separator: " "))\""]),
            // The gateway starts once every service answers its health check.
            Region(
                file: "docker-compose.yml", name: "gateway-depends-on",
                lines: names.flatMap { ["\($0):", "  condition: service_healthy"] }),
            Region(
                file: ".env.example", name: "database-passwords",
                lines: names.map { "\(passwordVariable($0))=generate-me" }),
            Region(
                file: "deploy/nginx/routes.conf", name: "service-routes",
                lines: services.flatMap { service in
                    ["# \(service.name)"] + service.routes.map { $0.nginxLocation(upstream: service.name) } + [""]
                }.dropLast()),
            // Each route's variable names the service's upstream group (below).
            Region(
                file: "deploy/nginx/compose/nginx.conf", name: "upstreams",
                lines: names.map { "set $sns_upstream_\($0) \($0);" }
                    + socketServices.map {
                        "set $sns_upstream_\(GatewayRoute.socketUpstream(of: $0)) \(GatewayRoute.socketUpstream(of: $0));"
                    }),
            // One group per service: its replicas found through Docker's DNS and re-resolved (`resolve`, nginx ≥
            // 1.27.3), connections kept between requests (idle ones closed after 2 s, before a draining replica
            // stops: SNS_SHUTDOWN_DRAIN_MS is 3 s).
            Region(
                file: "deploy/nginx/compose/nginx.conf", name: "service-upstreams",
                lines: names.map {
                    "upstream \($0) { zone \($0) 64k; server \($0):8080 resolve; keepalive 64; keepalive_timeout 2s; }"
                }),
            // Socket.IO: every request of a client to the replica that holds its session (hashed by address); the
            // replicas are found through Docker's DNS and re-resolved (`resolve`, nginx ≥ 1.27.3).
            Region(
                file: "deploy/nginx/compose/nginx.conf", name: "socket-upstreams",
                lines: socketServices.map {
                    let upstream = GatewayRoute.socketUpstream(of: $0)
                    return
                        "upstream \(upstream) { zone \(upstream) 64k; hash $remote_addr consistent; server \($0):8080 resolve; }"
                }),
            Region(
                file: "deploy/monitoring/prometheus.yml", name: "services",
                lines: ["names: [\(names.joined(separator: ", "))]"]),
        ]
    }

    /// `text` with `region`'s lines between its markers.
    package static func apply(_ region: Region, to text: String) throws -> String {
        var lines = text.components(separatedBy: "\n")
        let opening = "# >>> catalog: \(region.name)"
        let closing = "# <<< catalog: \(region.name)"
        guard
            let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(opening) }),
            let end = lines[(start + 1)...].firstIndex(where: {
                $0.trimmingCharacters(in: .whitespaces) == closing
            })
        else { throw Failure.missingMarkers(file: region.file, region: region.name) }
        let indent = String(lines[start].prefix { $0 == " " })
        lines.replaceSubrange((start + 1)..<end, with: region.lines.map { $0.isEmpty ? "" : indent + $0 })
        return lines.joined(separator: "\n")
    }

    /// The files under `root` whose regions differ from the catalog; with `write`, rewritten first.
    @discardableResult
    package static func sync(root: URL, write: Bool) throws -> [String] {
        var stale: [String] = []
        let files = Dictionary(grouping: regions(), by: \.file)
        for file in files.keys.sorted() {
            let url = root.appendingPathComponent(file)
            let text = try String(contentsOf: url, encoding: .utf8)
            let synced = try files[file, default: []].reduce(text) { try apply($1, to: $0) }
            guard synced != text else { continue }
            stale.append(file)
            if write { try synced.write(to: url, atomically: true, encoding: .utf8) }
        }
        return stale
    }
}
