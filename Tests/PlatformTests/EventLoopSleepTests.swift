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
        // Cancelled while it already sleeps.
        let started = StartGate()
        let second = Task {
            started.open()
            try await EventLoopSleep.sleep(for: .seconds(3600))
        }
        try await started.wait()
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
    }
}
