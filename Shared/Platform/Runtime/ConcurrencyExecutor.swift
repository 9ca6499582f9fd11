import Foundation
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
///
/// `SNS_EVENT_LOOPS` sets how many event-loop threads the process runs (NIO's default: one per core). Every
/// process of a local stack runs one (`deploy/local/lib.sh`): there, seven processes and PostgreSQL share two cores,
/// and a second loop per process mostly adds thread wake-ups and hand-offs — one loop cut posts' CPU per page by
/// ~30 % in a closed loop and by ~8 % in the mixed workload (decision 0028).
package enum ConcurrencyExecutor {
    /// Call first thing in an executable's main, on the main thread, before any `await`. A bad `SNS_EVENT_LOOPS`
    /// ends the process with 78 (EX_CONFIG), naming the variable, like every other setting.
    @discardableResult
    package static func install(from environment: [String: String]) -> String {
        do {
            if let loops = try eventLoopCount(from: environment) { NIOSingletons.groupLoopCountSuggestion = loops }
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(78)  // EX_CONFIG
        }
        if environment["SNS_CONCURRENCY_EXECUTOR"] == "pool" { return "pool" }
        let installed = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        onEventLoops.store(installed, ordering: .relaxed)
        return installed ? "event-loops" : "pool"
    }

    /// Whether this process's tasks run on NIO's singleton event loops (`install` succeeded). False in the tests'
    /// process, where in-process services run on Swift's default pool.
    package static var tasksRunOnEventLoops: Bool { onEventLoops.load(ordering: .relaxed) }
    private static let onEventLoops = Atomic<Bool>(false)

    /// `SNS_EVENT_LOOPS`: nil when unset (NIO's default), else 1…256.
    package static func eventLoopCount(from environment: [String: String]) throws -> Int? {
        guard let raw = environment["SNS_EVENT_LOOPS"], !raw.isEmpty else { return nil }
        guard let count = Int(raw), (1...256).contains(count) else {
            throw ConfigurationError(variable: "SNS_EVENT_LOOPS", reason: "must be a whole number from 1 to 256")
        }
        return count
    }
}
