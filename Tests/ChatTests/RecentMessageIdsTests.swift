import Testing

@testable import ChatService

/// The fan-out's memory of what it delivered: a repeat is refused while it is among the last `capacity` ids.
@Suite("Recent message ids (the socket fan-out's duplicate filter)")
struct RecentMessageIdsTests {
    @Test func aRepeatIsRefusedAndTheOldestIsForgottenFirst() {
        var recent = RecentMessageIds(capacity: 3)
        let answers = ["a", "b", "c", "a", "c", "d", "a", "d", "a", "b"].map { recent.insert($0) }
        // a, b, c new; a and c repeats; d new (the window is full: a goes); a new again (b goes); d and a repeats;
        // b new again.
        #expect(answers == [true, true, true, false, false, true, true, false, false, true])
    }

    @Test func aLongRunKeepsExactlyTheLastIds() {
        var recent = RecentMessageIds(capacity: 100)
        let first = (0..<1_000).map { recent.insert("m\($0)") }
        let repeats = (900..<1_000).map { recent.insert("m\($0)") }
        let older = recent.insert("m899")
        #expect(first.allSatisfy { $0 })
        #expect(repeats.allSatisfy { !$0 })
        #expect(older)
    }
}
