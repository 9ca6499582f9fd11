import Foundation

extension UUID {
    /// A version 7 UUID (RFC 9562 §5.7): the Unix time in milliseconds in the first 48 bits, big-endian, then the
    /// version, 74 random bits and the variant. Event ids are made this way (decision 0026): they are the key of the
    /// outbox's unique index and of every consumer's `processed_events`, and random (version 4) keys put each new
    /// row on a random leaf page of those indexes, which PostgreSQL then had to read from disk once the tables
    /// outgrew its buffers. Time-ordered keys are appended at the right edge: the pages written are the ones just
    /// written. PostgreSQL's `uuid` compares bytes, so ids sort by their millisecond.
    package static func timeOrdered(at date: Date = Date()) -> UUID {
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        // A version 4 UUID has the variant already and random bits everywhere else: the time goes over its first six
        // bytes, the version over the high nibble of the seventh (74 random bits remain).
        var uuid = UUID().uuid
        withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
            bytes[6] = 0x70 | (bytes[6] & 0x0F)
        }
        return UUID(uuid: uuid)
    }
}

extension UUID {
    /// The smallest version 7 UUID of `date`'s millisecond (the time, then zeros): every time-ordered id made before
    /// that millisecond sorts below it in PostgreSQL's `uuid` order. The retention pruner finds old processed-event
    /// records through their primary key with it (decision 0038).
    package static func timeOrderedLowerBound(at date: Date) -> UUID {
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).uuid
        withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        }
        return UUID(uuid: uuid)
    }
}
