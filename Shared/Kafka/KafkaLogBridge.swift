internal import CRDKafka
import Logging
import Synchronization

/// Per-handle state that librdkafka's C callbacks reach through `rd_kafka_opaque(rk)`.
/// Kept alive (strongly referenced by the owning client core) until after `rd_kafka_destroy` returns,
/// because log/error callbacks can fire from librdkafka threads until then.
final class KafkaClientContext: Sendable {
    let logger: Logger
    /// A group member's: whether it holds the group's current assignment (`KafkaRebalance`).
    let holdsAssignment = Atomic<Bool>(false)

    init(logger: Logger) {
        self.logger = logger
    }

    var opaquePointer: UnsafeMutableRawPointer {
        Unmanaged.passUnretained(self).toOpaque()
    }

    static func from(_ rk: OpaquePointer?) -> KafkaClientContext? {
        guard let rk, let opaque = rd_kafka_opaque(rk) else { return nil }
        return Unmanaged<KafkaClientContext>.fromOpaque(opaque).takeUnretainedValue()
    }
}

/// Routes librdkafka's log and error callbacks to swift-log. Payloads are never logged
/// (librdkafka's log lines carry protocol/state information only unless `debug=msg` is set).
enum KafkaLogBridge {
    /// Installs the log and error callbacks on `conf`. The conf opaque must be a `KafkaClientContext`.
    static func install(on conf: OpaquePointer) {
        rd_kafka_conf_set_log_cb(conf) { rk, level, facility, line in
            guard let context = KafkaClientContext.from(rk) else { return }
            let text = line.map { String(cString: $0) } ?? ""
            let fac = facility.map { String(cString: $0) } ?? "?"
            context.logger.log(
                level: KafkaLogBridge.logLevel(syslog: level),
                "\(text)",
                metadata: ["kafka.facility": "\(fac)"],
                source: "librdkafka"
            )
        }
        rd_kafka_conf_set_error_cb(conf) { rk, err, reason, _ in
            guard let context = KafkaClientContext.from(rk) else { return }
            let error = KafkaError(code: err, message: reason.map { String(cString: $0) } ?? "")
            // Most errors reported here are transient (broker down, transport); librdkafka retries.
            let fatal = err == RD_KAFKA_RESP_ERR__FATAL.rawValue
            context.logger.log(
                level: fatal ? .critical : .warning,
                "librdkafka error: \(error)",
                source: "librdkafka"
            )
        }
    }

    /// Maps syslog severities (0 emerg ... 7 debug) to swift-log levels.
    static func logLevel(syslog level: Int32) -> Logger.Level {
        switch level {
        case ...2: .critical
        case 3: .error
        case 4: .warning
        case 5: .notice
        case 6: .info
        default: .debug
        }
    }
}
