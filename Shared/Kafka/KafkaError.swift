internal import CRDKafka

/// An error reported by librdkafka (or by this wrapper, using librdkafka's error codes).
public struct KafkaError: Error, Sendable, CustomStringConvertible {
    /// Raw `rd_kafka_resp_err_t` value. Negative codes are client-side (`RD_KAFKA_RESP_ERR__*`),
    /// positive codes are broker (protocol) errors.
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// librdkafka's symbolic name for `code`, e.g. `_MSG_TIMED_OUT`.
    public var name: String {
        String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: code)))
    }

    public var description: String {
        "KafkaError(\(name) [\(code)]): \(message)"
    }

    /// A message could not be delivered within `message.timeout.ms`.
    public static let messageTimedOut: Int32 = RD_KAFKA_RESP_ERR__MSG_TIMED_OUT.rawValue
    /// The client handle was shut down (or is shutting down).
    public static let shutDown: Int32 = RD_KAFKA_RESP_ERR__DESTROY.rawValue
    /// The local producer queue is full.
    public static let queueFull: Int32 = RD_KAFKA_RESP_ERR__QUEUE_FULL.rawValue
    /// Reached the end of a partition (only with `enable.partition.eof=true`).
    public static let partitionEOF: Int32 = RD_KAFKA_RESP_ERR__PARTITION_EOF.rawValue
}

extension KafkaError {
    /// Builds an error from a librdkafka error code, using librdkafka's description when `detail` is nil.
    init(_ err: rd_kafka_resp_err_t, _ detail: String? = nil) {
        let text = String(cString: rd_kafka_err2str(err))
        self.init(code: err.rawValue, message: detail.map { "\($0): \(text)" } ?? text)
    }

    static func closed(_ what: String) -> KafkaError {
        KafkaError(code: shutDown, message: "\(what) is shut down")
    }
}
