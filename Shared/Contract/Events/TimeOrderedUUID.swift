import Foundation

extension UUID {
    /// A version 7 UUID (RFC 9562 §5.7): the Unix time in milliseconds in the first 48 bits, big-endian, then the
    /// version, 74 random bits and the variant. Event ids are made this way (decision 0026): they are the key of the
    /// outbox's unique index and of every consumer's `processed_events`, and random (version 4) keys put each new
    /// row on a random leaf page of those indexes, which PostgreSQL then had to read from disk once the tables
    /// outgrew its buffers. Time-ordered keys are appended at the right edge: the pages written are the ones just
    /// written. PostgreSQL's `uuid` compares bytes, so ids sort by their millisecond.
    package static func timeOrdered(at date: Date = Date()) -> UUID {
        var generator = SystemRandomNumberGenerator()
        return timeOrdered(at: date, using: &generator)
    }

    package static func timeOrdered<G: RandomNumberGenerator>(at date: Date, using generator: inout G) -> UUID {
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        for index in 6..<8 { bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * index)) }
        for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: low >> (8 * (index - 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // variant 0b10
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
