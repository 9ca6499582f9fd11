import Logging
import Metrics
import Prometheus

/// Process-wide logging and metrics set-up. Both swift-log and swift-metrics may be bootstrapped only once
/// per process, so executables call `bootstrap` once and tests (many apps in one process) never do:
/// `registry` is created and installed lazily on first use.
package enum Observability {
    /// The Prometheus registry behind `/metrics`, installed as the swift-metrics backend on first use.
    package static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (sanitize(name), labels.map { (sanitize($0.0), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    /// Call once at the top of an executable's main.
    package static func bootstrapLogging(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = DeferredMetadataLog(inner: StreamLogHandler.standardError(label: label))
            handler.logLevel = level
            return handler
        }
    }

    static func sanitize(_ name: String) -> String {
        String(
            name.unicodeScalars.map { scalar -> Character in
                let ok =
                    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == ":"
                return ok ? Character(scalar) : "_"
            })
    }
}
