import NIOCore
import NIOPosix
import Synchronization

/// Where a service's Swift tasks run.
///
/// By default every task runs on NIO's event-loop threads, the same threads that read HTTP requests and
/// PostgreSQL and broker answers (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`).
/// Without it, each `await` on a socket moves the work from an event loop to Swift's global pool and back: a
/// page answered with two database round trips crossed threads about six times, and profiles showed a third of
/// the services' CPU in the kernel's thread switches (bench/results/2026-11-24-ready-posts.md).
///
/// That is safe only because nothing in the services blocks a thread: password hashing runs on a dispatch queue
/// (`runBlocking`), file I/O on NIO's thread pool, librdkafka calls on the Kafka types' own queues and thread.
/// Keep it so: a blocking call in a task now stalls an event loop and every connection on it.
/// `SNS_CONCURRENCY_EXECUTOR=pool` keeps Swift's default pool (for comparison, or if a blocking call is suspected).
package enum ConcurrencyExecutor {
    /// Call first thing in an executable's main, on the main thread, before any `await`.
    @discardableResult
    package static func install(from environment: [String: String]) -> String {
        if environment["SNS_CONCURRENCY_EXECUTOR"] == "pool" { return "pool" }
        let installed = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        onEventLoops.store(installed, ordering: .relaxed)
        return installed ? "event-loops" : "pool"
    }

    /// Whether this process's tasks run on NIO's singleton event loops (`install` succeeded). False in the tests'
    /// process, where in-process services run on Swift's default pool.
    package static var tasksRunOnEventLoops: Bool { onEventLoops.load(ordering: .relaxed) }
    private static let onEventLoops = Atomic<Bool>(false)
}
