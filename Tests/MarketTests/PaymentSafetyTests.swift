import Foundation
import PortOneTestServer
import SNSPlatform
import SNSTestSupport
import Testing

@testable import MarketService

/// What must never go wrong with money: a forged amount, a replayed or contested `imp_uid`, races, token
/// expiry, and PortOne failing or unreachable (decision 0007).
@Suite("Payment safety")
struct PaymentSafetyTests {
    @Test func aForgedAmountIsCancelledAnd400() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 50_000)
            let impUid = try await market.paid(100)  // the app let the buyer pay 100 for a 50,000 book
            let reply = try await market.validate(impUid, post: postId, as: buyer, legacyBody: true)
            #expect(reply.status == 400, "\(reply.text)")
            let payment = try #require(await market.ledger.payment(impUid))
            #expect(payment.status == .cancelled)
            #expect(await market.ledger.cancels(of: impUid).map(\.amount) == [100])
            #expect(try await market.cancelState(impUid) == "done")
            #expect(try await market.payments(impUid: impUid) == 0)
            #expect(try await market.purchaseEvents(impUid: impUid) == 0)
            // Trying again changes nothing: still refused, no second refund.
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 400)
            #expect(await market.ledger.cancels(of: impUid).count == 1)
        }
    }

    @Test func aReplayedImpUidIs409AndSomeoneElsesToo() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            let thief = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let impUid = try await market.paid(5000)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 200)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 409)
            #expect(try await market.validate(impUid, post: postId, as: thief).status == 409)
            #expect(
                try await market.validate(impUid, post: try await market.product(price: 5000), as: buyer).status == 409)
            #expect(try await market.payments(impUid: impUid) == 1)
            #expect(try await market.purchaseEvents(impUid: impUid) == 1)

            // A claim by one account cannot be taken over by another while it is pending.
            let pending = try await market.paid(5000, status: .ready)
            #expect(try await market.validate(pending, post: postId, as: buyer).status == 400)
            #expect(try await market.validate(pending, post: postId, as: thief).status == 409)
        }
    }

    @Test func aMerchantUidIsRecordedOnceAndUnknownImpUidsCannotBeSquatted() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let first = try await market.paid(5000)
            #expect(try await market.validate(first, post: postId, as: buyer).status == 200)
            let merchantUid = try #require(await market.ledger.payment(first)?.merchantUid)
            let second = await market.ledger.createPayment(merchantUid: merchantUid, amount: 5000).impUid
            #expect(try await market.validate(second, post: postId, as: buyer).status == 400)
            #expect(try await market.payments(impUid: second) == 0)
            #expect(await market.ledger.payment(second)?.status == .cancelled)  // paid, never recorded: refunded

            // Someone validating an imp_uid PortOne has not issued does not own it when PortOne issues it later.
            let squatter = try await market.buyer()
            let future = "imp_\(Int.random(in: 100_000_000_000...999_999_999_999))"
            #expect(try await market.validate(future, post: postId, as: squatter).status == 400)
            await market.ledger.createPayment(
                merchantUid: "ios_\(TestEnvironment.unique(""))", amount: 5000, impUid: future)
            #expect(try await market.validate(future, post: postId, as: buyer).status == 200)
        }
    }

    /// The claim is the gate between recording and refunding: a payment refused while its refund could not reach
    /// PortOne is never recorded later, even when the price then matches (a retry, a webhook, the re-verifier).
    @Test func aRefusedPaymentIsNeverRecordedLaterEvenIfThePriceNowMatches() async throws {
        try await MarketHarness.run(.init(attempts: 1)) { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 4000)  // the market still has the old price
            let impUid = try await market.paid(5000)
            _ = await market.ledger.addFault(.cancel(impUid, .error(status: 500)))
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 400)
            #expect(try await market.cancelState(impUid) == "pending")

            try await market.postgres.query(
                "UPDATE \(table: market.schema, "products") SET price = 5000 WHERE post_id = \(postId)",
                logger: TestEnvironment.logger)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 400)
            #expect(try await market.webhook(impUid).status == 200)
            await market.ledger.clearFaults()
            _ = try await market.reverifyOnce(asOf: Date().addingTimeInterval(3600))
            #expect(try await market.payments(impUid: impUid) == 0)
            #expect(try await market.purchaseEvents(impUid: impUid) == 0)
            #expect(await market.ledger.payment(impUid)?.status == .cancelled)
            #expect(try await market.claimState(impUid) == "rejected")
        }
    }

    /// A claim that cannot be settled in time (here: a post the market never learns of) is not left holding the
    /// buyer's money: at expiry a paid, unrecorded payment is refunded.
    @Test func anExpiringClaimRefundsAPaidUnrecordedPayment() async throws {
        try await MarketHarness.run(.init(claimMaxAge: 0)) { market in
            let buyer = try await market.buyer()
            let impUid = try await market.paid(5000)
            #expect(try await market.validate(impUid, post: ObjectID.generate(), as: buyer).status == 410)
            let round = try await market.reverifyOnce(asOf: Date().addingTimeInterval(3600))
            #expect(round.expired == 1)
            #expect(await market.ledger.payment(impUid)?.status == .cancelled)
            #expect(try await market.cancelState(impUid) == "done")
            #expect(try await market.payments(impUid: impUid) == 0)
        }
    }

    @Test func concurrentValidationsOfOneImpUidRecordItOnce() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let impUid = try await market.paid(5000)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await market.validate(impUid, post: postId, as: buyer).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == 409 }.count == 7, "\(statuses)")
            #expect(try await market.payments(impUid: impUid) == 1)
            #expect(try await market.purchaseEvents(impUid: impUid) == 1)
        }
    }

    @Test func oneTokenIsSharedAndReplacedWhenPortOneExpiresItMidway() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            // Ten concurrent validations with no token yet: one getToken call between them.
            let payments = try await (0..<10).asyncMap { _ in
                (try await market.product(price: 1000), try await market.paid(1000))
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for (postId, impUid) in payments {
                    group.addTask { try await market.validate(impUid, post: postId, as: buyer).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 10))
            #expect(await market.ledger.tokenRequests(for: MarketHarness.impKey) == 1)

            // PortOne expires every token while ours is still cached: the next lookup gets 401, and the market
            // fetches a new token once and carries on.
            #expect(await market.ledger.expireTokens(of: MarketHarness.impKey) >= 1)
            let postId = try await market.product(price: 1000)
            let impUid = try await market.paid(1000)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 200)
            #expect(await market.ledger.tokenRequests(for: MarketHarness.impKey) == 2)
        }
    }

    @Test func transientPortOneFailuresAreRetried() async throws {
        // The deadline only has to be shorter than the slow answer below; it is generous because a loaded test
        // machine (the whole suite in parallel) was seen to take over a second for an ordinary in-process lookup.
        try await MarketHarness.run(.init(attempts: 4, timeout: .seconds(4))) { market in
            let buyer = try await market.buyer()
            // Two 500s, then an answer.
            let first = try await market.paid(1000)
            _ = await market.ledger.addFault(.lookup(first, .error(status: 500), times: 2))
            #expect(
                try await market.validate(first, post: try await market.product(price: 1000), as: buyer).status == 200)
            #expect(await market.ledger.lookups(of: first) == 3)
            // A dropped connection, then an answer.
            let second = try await market.paid(1000)
            _ = await market.ledger.addFault(.lookup(second, .drop(afterMilliseconds: 0), times: 1))
            #expect(
                try await market.validate(second, post: try await market.product(price: 1000), as: buyer).status == 200)
            // An answer far beyond the deadline (30 s against 4 s), then a normal one.
            let third = try await market.paid(1000)
            _ = await market.ledger.addFault(.lookup(third, .slow(delayMilliseconds: 30_000), times: 1))
            #expect(
                try await market.validate(third, post: try await market.product(price: 1000), as: buyer).status == 200)
            // getToken failing once is retried too.
            _ = await market.ledger.expireTokens(of: MarketHarness.impKey)
            _ = await market.ledger.addFault(.token(MarketHarness.impKey, .error(status: 503), times: 1))
            #expect(
                try await market.validate(
                    try await market.paid(1000), post: try await market.product(price: 1000), as: buyer
                ).status == 200)
        }
    }

    @Test func portOneDownIs429AndTheRetryRecordsItOnce() async throws {
        try await MarketHarness.run(.init(attempts: 2)) { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let impUid = try await market.paid(5000)
            _ = await market.ledger.addFault(.lookup(impUid, .error(status: 502)))
            let down = try await market.validate(impUid, post: postId, as: buyer)
            #expect(down.status == 429, "\(down.text)")
            #expect(try down.json.keys == ["message"])
            #expect(try await market.claimState(impUid) == "pending")
            #expect(try await market.payments(impUid: impUid) == 0)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 429)

            // PortOne is back: the app's retry gets its 200, once.
            await market.ledger.clearFaults()
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 200)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 409)
            #expect(try await market.payments(impUid: impUid) == 1)
            #expect(try await market.purchaseEvents(impUid: impUid) == 1)
        }
    }

    @Test func nothingListeningIs429Too() async throws {
        try await MarketHarness.run(.init(attempts: 2, unreachablePortOne: true)) { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let reply = try await market.validate("imp_123456789012", post: postId, as: buyer)
            #expect(reply.status == 429, "\(reply.text)")
            #expect(try await market.claimState("imp_123456789012") == "pending")
        }
    }

    @Test func theReverifierCompletesWhatPortOneCouldNotAnswerAndTheAppGetsIt() async throws {
        try await MarketHarness.run(.init(attempts: 1)) { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let impUid = try await market.paid(5000)
            _ = await market.ledger.addFault(.lookup(impUid, .error(status: 500)))
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 429)

            // Still down: the round postpones it.
            var round = try await market.reverifyOnce(asOf: Date().addingTimeInterval(3600))
            #expect(round.postponed == 1 && round.recorded == 0)
            await market.ledger.clearFaults()
            round = try await market.reverifyOnce(asOf: Date().addingTimeInterval(7200))
            #expect(round.recorded == 1)
            #expect(try await market.claimState(impUid) == "completed")
            #expect(try await market.purchaseEvents(impUid: impUid) == 1)
            // The history shows it at once; the app's retry gets the 200 it never received, then 409.
            let history = try await market.send(.get, "/v1/payments/me", as: buyer)
            #expect((try history.json["data"] as? [[String: Any]])?.count == 1)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 200)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 409)
        }
    }

    @Test func aRefundThatCannotReachPortOneIsRetriedInTheBackground() async throws {
        try await MarketHarness.run(.init(attempts: 1)) { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let impUid = try await market.paid(10)
            _ = await market.ledger.addFault(.cancel(impUid, .error(status: 500)))
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 400)
            #expect(try await market.cancelState(impUid) == "pending")
            #expect(await market.ledger.payment(impUid)?.status == .paid)

            await market.ledger.clearFaults()
            let round = try await market.reverifyOnce(asOf: Date().addingTimeInterval(3600))
            #expect(round.cancelsDone == 1)
            #expect(try await market.cancelState(impUid) == "done")
            #expect(await market.ledger.payment(impUid)?.status == .cancelled)
            #expect(await market.ledger.cancels(of: impUid).count == 1)
        }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
