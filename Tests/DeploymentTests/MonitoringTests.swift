import Foundation
import Testing
import Yams

/// The monitoring profile: Prometheus finds every replica, and the dashboard asks for metrics that exist.
@Suite("Monitoring profile")
struct MonitoringTests {
    @Test func prometheusDiscoversEveryServiceThroughDockerDNS() throws {
        let compose = try ComposeFile.load()
        let config = try #require(
            try Yams.load(yaml: try Repository.text("deploy/monitoring/prometheus.yml")) as? [String: Any])
        let jobs = try #require(config["scrape_configs"] as? [[String: Any]])
        let sns = try #require(jobs.first { $0["job_name"] as? String == "sns" })
        let discovery = try #require((sns["dns_sd_configs"] as? [[String: Any]])?.first)
        let names = try #require(discovery["names"] as? [String])
        #expect(Set(names) == Set(ProgramCatalog.services))
        #expect(discovery["type"] as? String == "A")
        for name in names {
            #expect("\(discovery["port"] ?? "")" == compose[name]?.environment["SNS_HTTP_PORT"], "\(name)")
        }
        #expect(sns["metrics_path"] as? String == "/metrics")

        let kafka = try #require(jobs.first { $0["job_name"] as? String == "kafka" })
        let targets = ((kafka["static_configs"] as? [[String: Any]])?.first?["targets"] as? [String]) ?? []
        #expect(targets == ["kafka-exporter:9308"])
        #expect(
            compose["kafka-exporter"] != nil
                && compose["prometheus"]?.volumes.contains {
                    $0.hasPrefix("./deploy/monitoring/prometheus.yml:/etc/prometheus/prometheus.yml")
                } == true)
    }

    @Test func grafanaIsProvisionedWithTheDashboardAndTheDataSource() throws {
        let compose = try ComposeFile.load()
        let grafana = try #require(compose["grafana"])
        #expect(grafana.volumes.contains("./deploy/monitoring/grafana/provisioning:/etc/grafana/provisioning:ro"))
        #expect(grafana.volumes.contains("./deploy/monitoring/grafana/dashboards:/etc/grafana/dashboards:ro"))
        #expect(
            try Repository.text("deploy/monitoring/grafana/provisioning/dashboards/sns.yml").contains(
                "path: /etc/grafana/dashboards"))
        let datasource = try Repository.text("deploy/monitoring/grafana/provisioning/datasources/prometheus.yml")
        #expect(datasource.contains("uid: sns-prometheus") && datasource.contains("url: http://prometheus:9090"))
        let dashboard = try Dashboard.load()
        #expect(dashboard.datasourceUIDs == ["sns-prometheus"])
    }

    /// Every metric the dashboard queries is one the code exports (same sanitised name), Prometheus' own `up`, or the
    /// Kafka exporter's consumer lag.
    @Test func dashboardQueriesOnlyExportedMetrics() throws {
        let exported = try ExportedMetrics.names()
        #expect(
            exported.isSuperset(of: [
                "hb_requests", "http_server_request_duration", "sns_outbox_lag_seconds",
                "sns_outbox_published_total", "sns_consumer_applied_total",
            ]))
        let external: Set<String> = ["up", "kafka_consumergroup_lag"]
        let used = try Dashboard.load().metricNames
        #expect(!used.isEmpty)
        for metric in used {
            #expect(
                exported.contains(metric) || external.contains(metric),
                "the dashboard queries \(metric), which nothing exports")
        }
        // The four things the dashboard is for.
        for needed in [
            "hb_requests", "http_server_request_duration", "sns_outbox_lag_seconds", "kafka_consumergroup_lag",
        ] {
            #expect(used.contains(needed), "the dashboard does not show \(needed)")
        }
    }
}

/// deploy/monitoring/grafana/dashboards/sns-overview.json.
struct Dashboard {
    var expressions: [String]
    var datasourceUIDs: Set<String>

    static func load() throws -> Dashboard {
        let data = try Data(contentsOf: Repository.url("deploy/monitoring/grafana/dashboards/sns-overview.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var expressions: [String] = []
        var uids: Set<String> = []
        for panel in root["panels"] as? [[String: Any]] ?? [] {
            if let uid = (panel["datasource"] as? [String: Any])?["uid"] as? String { uids.insert(uid) }
            for target in panel["targets"] as? [[String: Any]] ?? [] {
                if let expression = target["expr"] as? String { expressions.append(expression) }
            }
        }
        return Dashboard(expressions: expressions, datasourceUIDs: uids)
    }

    /// Metric names in the queries: identifiers that are neither functions, keywords, label names nor inside
    /// strings, selectors or ranges; histogram series suffixes removed.
    var metricNames: Set<String> {
        let keywords: Set<String> = [
            "by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset",
        ]
        var names: Set<String> = []
        for expression in expressions {
            var rest = expression
            for pattern in [#""[^"]*""#, #"\{[^}]*\}"#, #"\[[^\]]*\]"#, #"\b(?:by|without|on|ignoring)\s*\([^)]*\)"#] {
                rest = Pattern.replacing(pattern, in: rest, with: " ")
            }
            for name in Pattern.captures(#"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()"#, in: rest)
            where !keywords.contains(name) {
                var base = name
                for suffix in ["_bucket", "_sum", "_count"]
                where base.hasSuffix(suffix) && base.hasPrefix("http_server_") {
                    base = String(base.dropLast(suffix.count))
                }
                names.insert(base)
            }
        }
        return names
    }
}

/// Metric names the processes export: swift-metrics labels in our sources (the request metrics keep the names of
/// Hummingbird's MetricsMiddleware, `RequestMetrics`), sanitised like `Observability` does for Prometheus.
enum ExportedMetrics {
    static func names() throws -> Set<String> {
        let sources =
            Repository.files(under: "Shared", suffix: ".swift") + Repository.files(under: "Services", suffix: ".swift")
        var labels: Set<String> = []
        for file in sources {
            let text = try Repository.text(file)
            labels.formUnion(
                Pattern.captures(
                    #"\b(?:Counter|FloatingPointCounter|Gauge|Recorder|Timer|Meter)\(\s*label:\s*"([^"]+)""#, in: text))
        }
        return Set(labels.map(sanitised))
    }

    /// Observability.sanitize: anything but letters, digits, `_` and `:` becomes `_`.
    static func sanitised(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") ? $0 : "_" })
    }
}
