import Hummingbird
import NIOCore

/// Request context of the test server: the basic one plus the connection, which a `drop` fault closes.
package struct PortOneRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The client connection this request arrived on.
    let channel: any Channel

    package init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}
