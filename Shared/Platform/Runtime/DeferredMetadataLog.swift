import Logging

/// A log handler that keeps its metadata as a dictionary and hands it to `inner` only with an event that is logged.
///
/// swift-log's `StreamLogHandler` renders its metadata into a string every time a key is set. Every request sets
/// two or three keys (the request id in Hummingbird and in the edge middleware, the user id after the token check)
/// and, at the level a deployment runs at, logs nothing: that rendering was ~4 % of posts' CPU per page
/// (bench/results/2026-11-27-lean-request-path.md). Here a set is a dictionary write; the stored metadata goes with
/// each event as explicit metadata, below the metadata provider's and the event's own keys as in `StreamLogHandler`, so
/// the lines written are the same.
struct DeferredMetadataLog: WrappingLogHandler {
    var inner: any LogHandler
    var metadata: Logger.Metadata = [:]

    func log(event: LogEvent) {
        guard !metadata.isEmpty else { return inner.log(event: event) }
        // `StreamLogHandler`'s precedence: its own metadata, then the provider's, then the event's.
        var merged = metadata
        if let provider = inner.metadataProvider { merged.merge(provider.get()) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        var event = event
        event.metadata = merged
        inner.log(event: event)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}
