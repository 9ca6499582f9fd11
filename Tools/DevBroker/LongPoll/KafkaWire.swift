import NIOCore

/// The few parts of Kafka's wire protocol the long-poll front reads (decision 0049). A frame is a request or response
/// without its 4-byte size prefix. Only non-flexible versions are read (the mock is capped to them for Metadata and
/// FindCoordinator; Fetch ≤ 11 and Produce ≤ 8 are never flexible); anything else is passed through untouched.
enum KafkaWire {
    static let produce: Int16 = 0
    static let fetch: Int16 = 1
    static let metadata: Int16 = 3
    static let findCoordinator: Int16 = 10

    /// A request's header (v1: key, version, correlation id, client id) and where its body starts.
    struct RequestHeader: Equatable {
        var apiKey: Int16
        var apiVersion: Int16
        var correlationId: Int32
        var bodyOffset: Int
    }

    /// One partition a fetch asks for, and from which offset.
    struct FetchedPartition: Hashable {
        var topic: String
        var partition: Int32
        var offset: Int64
    }

    /// What the front needs of a fetch request (v4–v11).
    struct FetchRequest: Equatable {
        /// The offset of `max_wait_ms` in the frame, to write 0 over it.
        var maxWaitOffset: Int
        var maxWaitMilliseconds: Int32
        var minBytes: Int32
        var partitions: [FetchedPartition]
        var topics: Set<String> { Set(partitions.map(\.topic)) }
    }

    static func requestHeader(_ frame: ByteBuffer) -> RequestHeader? {
        var reader = Reader(frame)
        guard let key = reader.int16(), let version = reader.int16(), let correlation = reader.int32(),
            reader.nullableString() != nil
        else { return nil }
        return RequestHeader(apiKey: key, apiVersion: version, correlationId: correlation, bodyOffset: reader.offset)
    }

    static func fetchRequest(_ frame: ByteBuffer, header: RequestHeader) -> FetchRequest? {
        guard header.apiKey == fetch, (4...11).contains(header.apiVersion) else { return nil }
        let version = header.apiVersion
        var reader = Reader(frame, at: header.bodyOffset)
        guard reader.int32() != nil else { return nil }  // replica_id
        let maxWaitOffset = reader.offset
        guard let maxWait = reader.int32(), let minBytes = reader.int32(), reader.int32() != nil,  // max_bytes
            reader.skip(1)  // isolation_level
        else { return nil }
        if version >= 7 { guard reader.skip(8) else { return nil } }  // session id and epoch
        guard let topicCount = reader.count() else { return nil }
        var partitions: [FetchedPartition] = []
        for _ in 0..<topicCount {
            guard let topic = reader.string(), let partitionCount = reader.count() else { return nil }
            for _ in 0..<partitionCount {
                guard let partition = reader.int32() else { return nil }
                if version >= 9 { guard reader.skip(4) else { return nil } }  // current_leader_epoch
                guard let offset = reader.int64() else { return nil }
                if version >= 5 { guard reader.skip(8) else { return nil } }  // log_start_offset
                guard reader.skip(4) else { return nil }  // partition_max_bytes
                partitions.append(FetchedPartition(topic: topic, partition: partition, offset: offset))
            }
        }
        // Forgotten topics (v7+) and rack id (v11) follow; the front does not need them.
        return FetchRequest(
            maxWaitOffset: maxWaitOffset, maxWaitMilliseconds: maxWait, minBytes: minBytes, partitions: partitions)
    }

    /// The topics a produce request (v3–v8) writes to; nil when the request cannot be read.
    static func producedTopics(_ frame: ByteBuffer, header: RequestHeader) -> Set<String>? {
        guard header.apiKey == produce, (3...8).contains(header.apiVersion) else { return nil }
        var reader = Reader(frame, at: header.bodyOffset)
        guard reader.nullableString() != nil, reader.skip(2 + 4), let topicCount = reader.count() else { return nil }
        var topics: Set<String> = []
        for _ in 0..<topicCount {
            guard let topic = reader.string(), let partitionCount = reader.count() else { return nil }
            topics.insert(topic)
            for _ in 0..<partitionCount {
                guard reader.skip(4), let records = reader.int32(), records <= 0 || reader.skip(Int(records)) else {
                    return nil
                }
            }
        }
        return topics
    }

    /// Whether a fetch response (v4–v11, after its correlation id) gives the consumer anything: records, or an error
    /// it must act on. An unreadable response counts as something (the next fetch is then never held).
    static func fetchResponseGivesAnything(_ frame: ByteBuffer, version: Int16) -> Bool {
        guard (4...11).contains(version) else { return true }
        var reader = Reader(frame, at: 4)
        guard reader.skip(4) else { return true }  // throttle_time_ms
        if version >= 7 {
            guard let error = reader.int16(), error == 0, reader.skip(4) else { return true }  // error, session id
        }
        guard let topicCount = reader.count() else { return true }
        for _ in 0..<topicCount {
            guard reader.string() != nil, let partitionCount = reader.count() else { return true }
            for _ in 0..<partitionCount {
                guard reader.skip(4), let error = reader.int16(), error == 0,
                    reader.skip(8 + 8), version < 5 || reader.skip(8),  // high watermark, last stable, log start
                    let aborted = reader.int32(), aborted <= 0 || reader.skip(Int(aborted) * 16),
                    version < 11 || reader.skip(4),  // preferred_read_replica
                    let records = reader.int32()
                else { return true }
                if records > 0 { return true }
            }
        }
        return false
    }

    /// Writes `port` over every broker port of a Metadata response (v1–v8) or the coordinator's port of a
    /// FindCoordinator response (v1–v2); false when the response cannot be read (then it is left alone).
    static func rewritePorts(_ frame: inout ByteBuffer, apiKey: Int16, version: Int16, port: Int32) -> Bool {
        var reader = Reader(frame, at: 4)
        var portOffsets: [Int] = []
        switch (apiKey, version) {
        case (metadata, 1...8):
            if version >= 3 { guard reader.skip(4) else { return false } }  // throttle_time_ms
            guard let brokers = reader.count() else { return false }
            for _ in 0..<brokers {
                guard reader.skip(4), reader.string() != nil else { return false }  // node id, host
                portOffsets.append(reader.offset)
                guard reader.skip(4), reader.nullableString() != nil else { return false }  // port, rack
            }
        case (findCoordinator, 1...2):
            guard reader.skip(4 + 2), reader.nullableString() != nil, reader.skip(4), reader.string() != nil else {
                return false
            }
            portOffsets.append(reader.offset)
            guard reader.skip(4) else { return false }
        default:
            return false
        }
        for offset in portOffsets { frame.setInteger(port, at: frame.readerIndex + offset) }
        return true
    }

    /// A bounds-checked big-endian reader over a frame; every read answers nil past the end.
    struct Reader {
        let frame: ByteBuffer
        /// Bytes read so far, from the frame's reader index.
        private(set) var offset: Int

        init(_ frame: ByteBuffer, at offset: Int = 0) {
            self.frame = frame
            self.offset = offset
        }

        private mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard offset >= 0, offset + MemoryLayout<T>.size <= frame.readableBytes,
                let value = frame.getInteger(at: frame.readerIndex + offset, as: T.self)
            else { return nil }
            offset += MemoryLayout<T>.size
            return value
        }

        mutating func int16() -> Int16? { integer(Int16.self) }
        mutating func int32() -> Int32? { integer(Int32.self) }
        mutating func int64() -> Int64? { integer(Int64.self) }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, offset + count <= frame.readableBytes else { return false }
            offset += count
            return true
        }

        /// An array's element count (−1, a null array, counts as none).
        mutating func count() -> Int? {
            guard let count = int32() else { return nil }
            return count < 0 ? 0 : Int(count)
        }

        mutating func string() -> String? {
            guard let length = int16(), length >= 0, offset + Int(length) <= frame.readableBytes,
                let string = frame.getString(at: frame.readerIndex + offset, length: Int(length))
            else { return nil }
            offset += Int(length)
            return string
        }

        /// A nullable string: "" for null; nil only when the frame ends.
        mutating func nullableString() -> String? {
            guard let length = int16() else { return nil }
            if length < 0 { return "" }
            guard offset + Int(length) <= frame.readableBytes,
                let string = frame.getString(at: frame.readerIndex + offset, length: Int(length))
            else { return nil }
            offset += Int(length)
            return string
        }
    }
}
