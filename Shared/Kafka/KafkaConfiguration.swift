/// Connection settings shared by producers and consumers.
package struct KafkaConfiguration: Sendable {
    /// Bootstrap list, "host:port,host:port".
    package var bootstrapServers: String
    package var clientId: String
    /// Any extra librdkafka property (see librdkafka's CONFIGURATION.md). Applied last, so it
    /// overrides the wrapper's defaults (e.g. `session.timeout.ms`, `message.timeout.ms`).
    package var properties: [String: String]
    /// Producer only: how long `shutdown()` waits for outstanding deliveries before purging them. Short, so that
    /// SIGTERM ends a service promptly while the broker is away (what the relay did not get acknowledged stays in
    /// its outbox and is sent again).
    package var shutdownFlushTimeout: Duration = .seconds(3)

    package init(bootstrapServers: String, clientId: String, properties: [String: String] = [:]) {
        self.bootstrapServers = bootstrapServers
        self.clientId = clientId
        self.properties = properties
    }

    /// Ordered property list: connection settings, then `defaults`, then `properties`
    /// (sorted by key so that application order is deterministic).
    ///
    /// `socket.nagle.disable`: requests are small and latency is what matters (an event's commit → applied path
    /// is a write's answer time, decision 0013); with Nagle on, a small request may wait for the previous one's
    /// acknowledgement, which the peer may delay.
    func librdkafkaSettings(defaults: [(String, String)]) -> [(String, String)] {
        [("bootstrap.servers", bootstrapServers), ("client.id", clientId), ("socket.nagle.disable", "true")]
            + defaults
            + properties.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

extension Duration {
    /// Whole milliseconds, clamped to `Int32` (librdkafka timeouts are C ints).
    var clampedMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let ms = seconds.multipliedReportingOverflow(by: 1000).partialValue + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, ms))
    }
}
