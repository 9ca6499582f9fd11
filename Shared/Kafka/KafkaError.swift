internal import CRDKafka

/// An error reported by librdkafka (or by this wrapper, using librdkafka's error codes).
package struct KafkaError: Error, Sendable, CustomStringConvertible {
    /// Raw `rd_kafka_resp_err_t` value. Negative codes are client-side (`RD_KAFKA_RESP_ERR__*`),
    /// positive codes are broker (protocol) errors.
    package var code: Int32
    package var message: String

    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// librdkafka's symbolic name for `code`, e.g. `_MSG_TIMED_OUT`.
    package var name: String {
        String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: code)))
    }

    package var description: String {
        "KafkaError(\(name) [\(code)]): \(message)"
    }

    /// A message could not be delivered within `message.timeout.ms`.
    package static let messageTimedOut: Int32 = RD_KAFKA_RESP_ERR__MSG_TIMED_OUT.rawValue
    /// The client handle was shut down (or is shutting down).
    package static let shutDown: Int32 = RD_KAFKA_RESP_ERR__DESTROY.rawValue
    /// The local producer queue is full.
    package static let queueFull: Int32 = RD_KAFKA_RESP_ERR__QUEUE_FULL.rawValue
    /// Reached the end of a partition (only with `enable.partition.eof=true`).
    package static let partitionEOF: Int32 = RD_KAFKA_RESP_ERR__PARTITION_EOF.rawValue
    /// A blocking call did not complete within its timeout.
    package static let timedOut: Int32 = RD_KAFKA_RESP_ERR__TIMED_OUT.rawValue
    /// The broker does not implement the request (e.g. ListGroups on librdkafka's mock cluster).
    package static let unsupportedFeature: Int32 = RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE.rawValue
    /// The topic or partition does not exist.
    package static let unknownTopicOrPartition: Int32 = RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART.rawValue
    /// The broker refused a group request from a client that is not a member of the group. For
    /// `KafkaAdmin.commitOffsets`: the group has members (see there).
    package static let unknownMemberId: Int32 = RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID.rawValue
    /// A requested offset is outside the partition's range (a reader with `auto.offset.reset=error`).
    package static let offsetOutOfRange: Int32 = RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET.rawValue
    /// An argument was rejected before anything was sent.
    package static let invalidArgument: Int32 = RD_KAFKA_RESP_ERR__INVALID_ARG.rawValue
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
