import Foundation
import PortOneTestServer
import SNSPlatform
import SNSTestSupport
import Testing

@testable import MarketService

/// `POST /v1/payments/webhook`: never trusted, idempotent, and able to finish a purchase whose app call did not
/// (decision 0007). The notification is posted the way PortOne does (no SesacKey, no token).
@Suite("Payment webhook")
struct WebhookTests {
    @Test func aWebhookBeforeTheAppsCallRecordsNothingAndTheCallThenSucceeds() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let impUid = try await market.paid(5000)
            let early = try await market.webhook(impUid)
            #expect(early.status == 200, "\(early.text)")
            #expect(try await market.payments(impUid: impUid) == 0)  // whose payment, for what? Not known yet.
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 200)
            #expect(try await market.payments(impUid: impUid) == 1)
        }
    }

    @Test func aWebhookAfterTheAppsCallChangesNothing() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let impUid = try await market.paid(5000)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 200)
            let lookups = await market.ledger.lookups(of: impUid)
            for _ in 0..<3 {
                let late = try await market.webhook(impUid)
                #expect(late.status == 200)
                #expect(try late.json.string("message") == "already recorded")
            }
            #expect(await market.ledger.lookups(of: impUid) == lookups)  // a recorded payment costs no PortOne call
            #expect(try await market.payments(impUid: impUid) == 1)
            #expect(try await market.purchaseEvents(impUid: impUid) == 1)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 409)
        }
    }

    @Test func aWebhookCompletesAPurchaseWhoseAppCallCouldNotFinish() async throws {
        try await MarketHarness.run(.init(attempts: 1)) { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let impUid = try await market.paid(5000)
            _ = await market.ledger.addFault(.lookup(impUid, .error(status: 500), times: 1))
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 429)  // the app gives up here

            let notified = try await market.webhook(impUid)
            #expect(notified.status == 200, "\(notified.text)")
            #expect(try notified.json.string("message") == "recorded")
            #expect(try await market.payments(impUid: impUid) == 1)
            #expect(try await market.purchaseEvents(impUid: impUid) == 1)
            #expect(try await market.claimState(impUid) == "completed")
            // The app, opened again, retries: its 200 once, then 409 like any repeat.
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 200)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 409)
        }
    }

    @Test func customDataLetsAWebhookCompleteAPurchaseNobodyValidated() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let impUid = try await market.paid(
                5000, customData: #"{"post_id":"\#(postId)","buyer_id":"\#(buyer.userId)"}"#)
            #expect(try await market.webhook(impUid).status == 200)
            #expect(try await market.payments(impUid: impUid) == 1)
            let history = try await market.send(.get, "/v1/payments/me", as: buyer)
            #expect((try history.json["data"] as? [[String: Any]])?.first?["post_id"] as? String == postId)

            // Attribution is not trust: a wrong amount named in custom_data is refunded, not recorded.
            let forged = try await market.paid(
                5, customData: #"{"post_id":"\#(postId)","buyer_id":"\#(buyer.userId)"}"#)
            #expect(try await market.webhook(forged).status == 200)
            #expect(try await market.payments(impUid: forged) == 0)
            #expect(await market.ledger.payment(forged)?.status == .cancelled)
        }
    }

    @Test func forgedAndMalformedNotificationsChangeNothing() async throws {
        try await MarketHarness.run { market in
            // An imp_uid PortOne does not know.
            let unknown = try await market.webhook("imp_999999999999")
            #expect(unknown.status == 200)
            #expect(try await market.payments(impUid: "imp_999999999999") == 0)
            // A notification that claims "paid" for a payment that is not.
            let postId = try await market.product(price: 5000)
            let buyer = try await market.buyer()
            let failed = try await market.paid(
                5000, status: .failed,
                customData: #"{"post_id":"\#(postId)","buyer_id":"\#(buyer.userId)"}"#)
            #expect(try await market.webhook(failed, status: "paid").status == 200)
            #expect(try await market.payments(impUid: failed) == 0)
            // Bodies without a usable imp_uid.
            for body in ["{}", "nonsense", #"{"imp_uid":"../../users/getToken"}"#] {
                let reply = try await market.send(.post, "/v1/payments/webhook", as: nil, json: body, apiKey: false)
                #expect(reply.status == 400, "\(body) → \(reply.text)")
            }
            // Form-encoded, as some iamport settings send it.
            let impUid = try await market.paid(
                5000, customData: #"{"post_id":"\#(postId)","buyer_id":"\#(buyer.userId)"}"#)
            let form = try await market.send(
                .post, "/v1/payments/webhook", as: nil, json: "imp_uid=\(impUid)&merchant_uid=m&status=paid",
                apiKey: false, contentType: "application/x-www-form-urlencoded")
            #expect(form.status == 200, "\(form.text)")
            #expect(try await market.payments(impUid: impUid) == 1)
        }
    }

    @Test func portOneDownDuringAWebhookIs503AndTheClaimWaits() async throws {
        try await MarketHarness.run(.init(attempts: 1)) { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            let impUid = try await market.paid(5000)
            _ = await market.ledger.addFault(.lookup(impUid, .error(status: 500)))
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 429)
            #expect(try await market.webhook(impUid).status == 503)
            #expect(try await market.claimState(impUid) == "pending")
            await market.ledger.clearFaults()
            #expect(try await market.webhook(impUid).status == 200)
            #expect(try await market.payments(impUid: impUid) == 1)
        }
    }
}
