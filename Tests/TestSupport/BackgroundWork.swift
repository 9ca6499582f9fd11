import Foundation
import Logging
import Synchronization

/// Runs background loops (a `PostgresClient`'s or a Kafka client's `run()`) beside a test's body, and ends them
/// afterwards without letting a loop that never ends hang the suite.
///
/// Why not a task group: a group waits for every child at the end of its scope. PostgresNIO 1.33.2's pool was
/// seen not to return from `run()` after cancellation (no connection left, no timer pending, the test process
/// idle forever with the test "started" and never "passed"), so one stuck teardown stalled the whole suite.
/// Here each loop is its own task: when the body is done, `beforeCancel` runs (a producer's orderly shutdown,
/// say), the loops are cancelled, and each gets `grace` to end; one that does not is logged and left behind.
/// The test's outcome is the body's, which is what the test is about.
package func withBackgroundWork<T: Sendable>(
    _ loops: [@Sendable () async throws -> Void],
    name: String,
    grace: Duration = .seconds(20),
    beforeCancel: @Sendable () async -> Void = {},
    _ body: () async throws -> T
) async throws -> T {
    let tasks = loops.map { loop in Task<Void, Never> { _ = try? await loop() } }
    func finish() async {
        await beforeCancel()
        for task in tasks { task.cancel() }
        for (index, task) in tasks.enumerated() where await !ended(task, within: grace) {
            TestEnvironment.logger.warning(
                "a background loop did not end after cancellation; left behind",
                metadata: ["owner": "\(name)", "loop": "\(index)", "grace": "\(grace)"])
        }
    }
    do {
        let result = try await body()
        await finish()
        return result
    } catch {
        await finish()
        throw error
    }
}

/// Whether `task` ended within `limit`. The waiting side is a race settled once: whichever of "the task ended"
/// and "the limit passed" comes first resumes the caller; the other finds it settled and does nothing.
private func ended(_ task: Task<Void, Never>, within limit: Duration) async -> Bool {
    let race = SettledOnce()
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        Task {
            await task.value
            if race.claim() { continuation.resume(returning: true) }
        }
        Task {
            try? await Task.sleep(for: limit)
            if race.claim() { continuation.resume(returning: false) }
        }
    }
}

/// True for the first caller of `claim()` only.
private final class SettledOnce: Sendable {
    private let settled = Mutex(false)
    func claim() -> Bool {
        settled.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
