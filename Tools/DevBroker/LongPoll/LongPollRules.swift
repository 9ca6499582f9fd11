/// Which topics were produced to, and when, counted in acknowledged produce requests (decision 0049).
struct ProduceLog {
    /// Produce requests acknowledged so far.
    private(set) var sequence: UInt64 = 0
    private var lastByTopic: [String: UInt64] = [:]
    /// The last produce request whose topics could not be read: it counts for every topic.
    private var lastUnread: UInt64 = 0

    /// A produce request to `topics` (nil: unread) was acknowledged.
    mutating func record(_ topics: Set<String>?) {
        sequence += 1
        guard let topics else {
            lastUnread = sequence
            return
        }
        for topic in topics { lastByTopic[topic] = sequence }
    }

    /// Whether anything was produced to one of `topics` after the produce count was `sequence`.
    func produced(since sequence: UInt64, to topics: Set<String>) -> Bool {
        lastUnread > sequence || topics.contains { (lastByTopic[$0] ?? 0) > sequence }
    }
}

/// One connection's fetch history: whether its next fetch waits in the front.
struct LongPollState {
    /// The connection's last fetch passed on: its partitions and offsets, the produce count when it went, and whether
    /// its answer gave nothing (nil until the answer came).
    private(set) var last: (partitions: Set<KafkaWire.FetchedPartition>, sentAt: UInt64, gaveNothing: Bool?)?

    /// A fetch waits when it asks for exactly what the previous one asked for, that one got nothing, and nothing was
    /// produced to its topics since it went: answered now, it would get nothing again.
    func shouldHold(_ request: KafkaWire.FetchRequest, log: ProduceLog) -> Bool {
        guard let last, last.gaveNothing == true, last.partitions == Set(request.partitions) else { return false }
        return !log.produced(since: last.sentAt, to: request.topics)
    }

    mutating func sent(_ request: KafkaWire.FetchRequest, at sequence: UInt64) {
        last = (Set(request.partitions), sequence, nil)
    }

    mutating func answered(gaveAnything: Bool) {
        last?.gaveNothing = !gaveAnything
    }
}
