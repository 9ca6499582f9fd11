import Foundation
import SNSTestSupport
import Testing

@testable import SNSPlatform

/// Decision 0036: when a row leaves the relay's `NOTIFY` out, and who wakes the relay instead.
@Suite("Writes wake the local relay")
struct LocalRelayTests {
    let outbox = Outbox(schema: try! SQLIdentifier("local_relay_test"), producerName: "posts")

    func wiredRelay() -> WakeupSignal {
        let wakeup = WakeupSignal()
        outbox.localRelay.attach(wakeup)
        return wakeup
    }

    @Test func aRowNotifiesUnlessTheLocalRelayLeadsAndATicketWillWakeIt() {
        _ = wiredRelay()
        let ticket = ReadYourWritesTicket.inert
        #expect(outbox.channel(wakingAfterCommit: ticket) == outbox.notificationChannel, "not leading yet")
        outbox.localRelay.setLeading(true)
        #expect(outbox.channel(wakingAfterCommit: nil) == outbox.notificationChannel, "no ticket: no post-commit step")
        #expect(outbox.channel(wakingAfterCommit: ticket) == "")
        outbox.localRelay.setLeading(false)
        #expect(outbox.channel(wakingAfterCommit: ReadYourWritesTicket.inert) == outbox.notificationChannel)
    }

    @Test func theTicketWakesTheRelayOnceWhenWaitedFor() async {
        let wakeup = wiredRelay()
        outbox.localRelay.setLeading(true)
        let ticket = ReadYourWritesTicket.inert
        _ = outbox.channel(wakingAfterCommit: ticket)
        #expect(wakeup.signalCount == 0, "not before the commit")
        await ticket.wait(logger: TestEnvironment.logger)
        #expect(wakeup.signalCount == 1)
        #expect(outbox.localRelay.takeNudged())
        await ticket.wait(logger: TestEnvironment.logger)
        #expect(wakeup.signalCount == 1, "once")
        #expect(!outbox.localRelay.takeNudged())
    }

    @Test func aTicketThatIsNeverWaitedForWakesTheRelayWhenItEnds() {
        let wakeup = wiredRelay()
        outbox.localRelay.setLeading(true)
        do {
            let ticket = ReadYourWritesTicket.inert
            _ = outbox.channel(wakingAfterCommit: ticket)
            withExtendedLifetime(ticket) { #expect(wakeup.signalCount == 0) }
        }
        #expect(wakeup.signalCount == 1)
    }

    /// A batch that took a wake-up and failed keeps it owed (the relay forwards it if it stops before a batch
    /// succeeds) without waking the relay out of its back-off.
    @Test func aWakeUpTakenByAFailedBatchIsKept() {
        let wakeup = wiredRelay()
        outbox.localRelay.nudge()
        #expect(outbox.localRelay.takeNudged())
        outbox.localRelay.keepNudged()
        #expect(wakeup.signalCount == 1)
        #expect(outbox.localRelay.takeNudged())
        #expect(!outbox.localRelay.takeNudged())
    }

    @Test func aCancelledWakeUpIsNotSent() async {
        let wakeup = wiredRelay()
        outbox.localRelay.setLeading(true)
        do {
            let ticket = ReadYourWritesTicket.inert
            _ = outbox.channel(wakingAfterCommit: ticket)
            ticket.cancelRelayWake()  // the statement wrote no row after all
            await ticket.wait(logger: TestEnvironment.logger)
        }
        #expect(wakeup.signalCount == 0)
    }
}
