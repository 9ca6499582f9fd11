import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// A PostgreSQL pool per event loop, for the statements of HTTP requests.
///
/// A service's tasks run on NIO's event loops (`ConcurrencyExecutor`), and a task that awaits a query resumes on the
/// loop of the query's connection. With one pool for the whole process, PostgresNIO opens its connections on whichever
/// loop asked first, so most requests crossed loops twice: their query was written from the request's loop to the
/// connection's, and the answer was written back from the connection's loop to the request's channel. With a pool
/// per loop (each its share of `SNS_DATABASE_MAX_CONNECTIONS`, at least 2), a request's statements use connections of
/// its own loop (`SNS_DATABASE_POOLS=shared` keeps one pool; decision 0025).
///
/// The shared pool stays for everything not tied to a request: migrations, the outbox relay, consumers, readiness.
package struct LoopLocalPools: Sendable {
    /// Each loop of the group with its pool; empty when requests use the shared pool.
    private let pools: [(loop: any EventLoop, pool: DatabasePool)]
    /// The pool for tasks that are not on one of those loops (and for all when `pools` is empty).
    package let shared: DatabasePool
    /// Each per-loop pool's size: the configured size divided between the loops, at least 2.
    package let connectionsPerLoop: Int
    /// Connections each per-loop pool keeps open (fewer if its size is smaller): enough for the requests a loop
    /// usually has at the database at once, so that they run without the pool's timers (decision 0029).
    package static let warmConnections = 4

    /// One pool per loop of NIO's singleton group when `perLoop` and this process's tasks run on those loops;
    /// otherwise only `shared`.
    package init(
        shared: DatabasePool, configuration: PostgresClient.Configuration, perLoop: Bool, logger: Logger
    ) {
        self.init(
            shared: shared, configuration: configuration,
            loops: perLoop && ConcurrencyExecutor.tasksRunOnEventLoops ? .singleton : nil, logger: logger)
    }

    /// One pool per loop of `loops` (none when nil).
    package init(
        shared: DatabasePool, configuration: PostgresClient.Configuration, loops group: MultiThreadedEventLoopGroup?,
        logger: Logger
    ) {
        self.shared = shared
        guard let group else {
            self.pools = []
            self.connectionsPerLoop = 0
            return
        }
        let loops = Array(group.makeIterator())
        var configuration = configuration
        configuration.options.size(
            maximum: max(2, configuration.options.maximumConnections / loops.count), warm: Self.warmConnections)
        self.connectionsPerLoop = configuration.options.maximumConnections
        self.pools = loops.enumerated().map { index, loop in
            let pool = DatabasePool(name: "event loop \(index)", logger: logger) { [configuration] in
                PostgresClient(configuration: configuration, eventLoopGroup: loop, backgroundLogger: logger)
            }
            return (loop, pool)
        }
    }

    /// The pool of the current task's event loop, or the shared one.
    package var current: PostgresClient {
        guard !pools.isEmpty, let loop = MultiThreadedEventLoopGroup.currentEventLoop else { return shared.client }
        for entry in pools where entry.loop === loop { return entry.pool.client }
        return shared.client
    }

    /// The per-loop pools, to run (and shut down) beside the shared one.
    package var perLoopPools: [DatabasePool] { pools.map(\.pool) }
}
