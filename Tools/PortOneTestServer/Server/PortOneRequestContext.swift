import Hummingbird
import NIOCore

/// Request context of the test server: the basic one plus the connection, which a `drop` fault closes.
public struct PortOneRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The client connection this request arrived on.
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}
