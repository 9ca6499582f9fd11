internal import CRDKafka

/// Owns one `rd_kafka_t *`.
///
/// `@unchecked Sendable` is safe because the pointer is immutable and every use is made by the owner
/// (`KafkaProducer` / `KafkaConsumer` / `KafkaPartitionReader` / `KafkaAdmin` cores): librdkafka
/// documents `rd_kafka_t` as thread-safe for produce/poll/flush/commit/offset store (a consumer polls on its
/// task's thread while commits run on its queue, decision 0039); the one non-thread-safe call,
/// `rd_kafka_destroy`, is made exactly once by the owner's dedicated thread (producer) or serial queue
/// (consumer, reader, admin) after the owner has stopped handing the pointer to anyone else (the consumer
/// takes it away under the lock its polls hold). The admin's short-lived per-group handles are created and destroyed within one block on the
/// admin's queue, or handed whole to one Dispatch worker that only destroys them.
final class KafkaClientHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Creates a client. Plain function (no throwing closures around C buffers): see the
    /// Swift 6.3 release-mode ownership crash mentioned in the package notes.
    static func make(
        type: rd_kafka_type_t,
        settings: [(String, String)],
        context: KafkaClientContext,
        configure: (OpaquePointer) -> Void = { _ in }
    ) throws(KafkaError) -> KafkaClientHandle {
        guard let conf = rd_kafka_conf_new() else {
            throw KafkaError(RD_KAFKA_RESP_ERR__FAIL, "rd_kafka_conf_new failed")
        }
        for (key, value) in settings {
            if let problem = setProperty(conf, key, value) {
                rd_kafka_conf_destroy(conf)
                throw KafkaError(code: RD_KAFKA_RESP_ERR__INVALID_ARG.rawValue, message: problem)
            }
        }
        rd_kafka_conf_set_opaque(conf, context.opaquePointer)
        KafkaLogBridge.install(on: conf)
        configure(conf)

        var errorBuffer = [CChar](repeating: 0, count: 512)
        let created = rd_kafka_new(type, conf, &errorBuffer, errorBuffer.count)
        guard let created else {
            // On failure rd_kafka_new does not take ownership of conf.
            rd_kafka_conf_destroy(conf)
            throw KafkaError(code: RD_KAFKA_RESP_ERR__FAIL.rawValue, message: "rd_kafka_new: \(cString(errorBuffer))")
        }
        return KafkaClientHandle(pointer: created)
    }

    /// Returns nil on success, else librdkafka's explanation.
    private static func setProperty(_ conf: OpaquePointer, _ key: String, _ value: String) -> String? {
        var errorBuffer = [CChar](repeating: 0, count: 512)
        let result = rd_kafka_conf_set(conf, key, value, &errorBuffer, errorBuffer.count)
        if result == RD_KAFKA_CONF_OK { return nil }
        return "invalid property \(key)=\(value): \(cString(errorBuffer))"
    }
}

/// Decodes a NUL-terminated C buffer.
func cString(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
