import Logging

/// Hummingbird logs "Server shutdown error: Already closed" at error level when its graceful shutdown finds the
/// listener closed, which the drain does on purpose (decision 0018). An error on every deployment would page
/// people for nothing, so the application's logger passes that one message on at debug level; everything else
/// goes through unchanged.
struct ExpectedShutdownLog: WrappingLogHandler {
    var inner: any LogHandler

    func log(event: LogEvent) {
        guard event.level == .error, event.message.description.hasPrefix("Server shutdown error: Already closed")
        else { return inner.log(event: event) }
        guard inner.logLevel <= .debug else { return }
        var demoted = event
        demoted.level = .debug
        inner.log(event: demoted)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }
}

extension Logger {
    /// This logger, with Hummingbird's expected shutdown message demoted (see `ExpectedShutdownLog`).
    var quietingExpectedShutdownErrors: Logger {
        var logger = self
        logger.handler = ExpectedShutdownLog(inner: handler)
        return logger
    }
}
