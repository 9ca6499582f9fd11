internal import CRDKafka
import Foundation

/// Builds the `rd_kafka_vu_t` argument list for `rd_kafka_produceva` (the non-variadic form of
/// `rd_kafka_producev`, which Swift cannot call). All strings and buffers are copied into C memory
/// that lives for the duration of the call; `RD_KAFKA_MSG_F_COPY` makes librdkafka copy them again.
enum KafkaProduceCall {
    /// Enqueues `message` with `opaque` as its per-message opaque (`_private` in the delivery report).
    /// Returns nil on success. On failure no delivery report will be emitted for this message.
    static func produce(
        _ rk: OpaquePointer, _ message: KafkaOutgoingMessage, opaque: UnsafeMutableRawPointer
    ) -> KafkaError? {
        var owned: [UnsafeMutableRawPointer] = []
        defer { for pointer in owned { free(pointer) } }

        func bytes(_ value: [UInt8]) -> UnsafeMutableRawPointer {
            let pointer = malloc(max(value.count, 1))!
            if !value.isEmpty {
                value.withUnsafeBytes { pointer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
            owned.append(pointer)
            return pointer
        }
        func string(_ value: String) -> UnsafePointer<CChar> {
            let pointer = strdup(value)!
            owned.append(UnsafeMutableRawPointer(pointer))
            return UnsafePointer(pointer)
        }

        var arguments: [rd_kafka_vu_t] = []
        var topic = rd_kafka_vu_t()
        topic.vtype = RD_KAFKA_VTYPE_TOPIC
        topic.u.cstr = string(message.topic)
        arguments.append(topic)

        var flags = rd_kafka_vu_t()
        flags.vtype = RD_KAFKA_VTYPE_MSGFLAGS
        flags.u.i = RD_KAFKA_MSG_F_COPY
        arguments.append(flags)

        if let key = message.key {
            var entry = rd_kafka_vu_t()
            entry.vtype = RD_KAFKA_VTYPE_KEY
            entry.u.mem.ptr = bytes(key)
            entry.u.mem.size = key.count
            arguments.append(entry)
        }

        var value = rd_kafka_vu_t()
        value.vtype = RD_KAFKA_VTYPE_VALUE
        value.u.mem.ptr = bytes(message.value)
        value.u.mem.size = message.value.count
        arguments.append(value)

        for header in message.headers {
            var entry = rd_kafka_vu_t()
            entry.vtype = RD_KAFKA_VTYPE_HEADER
            entry.u.header.name = string(header.key)
            entry.u.header.val = UnsafeRawPointer(bytes(header.value))
            entry.u.header.size = header.value.count
            arguments.append(entry)
        }

        var context = rd_kafka_vu_t()
        context.vtype = RD_KAFKA_VTYPE_OPAQUE
        context.u.ptr = opaque
        arguments.append(context)

        let error = arguments.withUnsafeBufferPointer { rd_kafka_produceva(rk, $0.baseAddress, $0.count) }
        guard let error else { return nil }
        let code = rd_kafka_error_code(error)
        let text = String(cString: rd_kafka_error_string(error))
        rd_kafka_error_destroy(error)
        return KafkaError(code: code.rawValue, message: "produce to \(message.topic): \(text)")
    }
}
