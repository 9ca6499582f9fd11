import Testing

@testable import SNSPlatform

/// The event-loop timer that replaces `Task.sleep` in the services' timeouts behaves like it: it returns after its
/// duration, and a cancelled sleep ends at once with `CancellationError` (an hour-long sleep would otherwise hang the
/// test).
@Suite("Event-loop sleep")
struct EventLoopSleepTests {
    @Test func aShortSleepReturns() async throws {
        let start = ContinuousClock.now
        try await EventLoopSleep.sleep(for: .milliseconds(5))
        #expect(ContinuousClock.now - start >= .milliseconds(5))
        try await EventLoopSleep.sleep(for: .zero)
        try await EventLoopSleep.sleep(until: ContinuousClock.now - .seconds(1))
    }

    @Test func aCancelledSleepEndsWithCancellationError() async throws {
        let sleeper = Task { try await EventLoopSleep.sleep(for: .seconds(3600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        // Cancelled while it (most likely) already sleeps; a minute's guard turns a sleep that ignores its
        // cancellation into a failure instead of an hour's hang.
        let second = Task { try await EventLoopSleep.sleep(for: .seconds(3600)) }
        try await EventLoopSleep.sleep(for: .milliseconds(20))
        second.cancel()
        let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                do { try await second.value } catch is CancellationError { return true }
                return false
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(ended, "the cancelled sleep ended with CancellationError")
    }
}
