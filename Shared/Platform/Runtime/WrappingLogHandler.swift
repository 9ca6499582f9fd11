import Logging

/// A log handler in front of another: the level and the metadata provider are the inner handler's.
protocol WrappingLogHandler: LogHandler {
    var inner: any LogHandler { get set }
}

extension WrappingLogHandler {
    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }
}
