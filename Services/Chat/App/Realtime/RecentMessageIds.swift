/// The ids of the last `capacity` messages a replica handed to its sockets, so that a message read twice from
/// `sns.chats` reaches a socket once. The topic is at-least-once, like every topic here: the relay sends a batch again
/// when it could not mark it published, and a reader may re-read after its fetch position was reset. Every other
/// consumer drops a repeat through its `processed_events`; the fan-out keeps no database state, so it remembers the
/// most recent ids instead (a repeat arrives close behind the original).
struct RecentMessageIds {
    let capacity: Int
    private var ids: Set<String> = []
    /// Insertion order, as a ring: `order[next]` is the oldest once the ring is full.
    private var order: [String] = []
    private var next = 0

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Remembers `id`; false if it was already among the recent ones (a repeat: not to be delivered again).
    mutating func insert(_ id: String) -> Bool {
        guard !ids.contains(id) else { return false }
        if order.count < capacity {
            order.append(id)
        } else {
            ids.remove(order[next])
            order[next] = id
            next = (next + 1) % capacity
        }
        ids.insert(id)
        return true
    }
}
