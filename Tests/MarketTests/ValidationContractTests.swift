import Foundation
import PortOneTestServer
import SNSPlatform
import SNSTestSupport
import Testing

@testable import MarketService

/// `POST /v1/payments/validation` and `GET /v1/payments/me` as the clients decode them (API conventions §2.6, §10.10).
@Suite("Payment validation contract")
struct ValidationContractTests {
    static let paymentKeys: Set<String> = [
        "payment_id", "buyer_id", "post_id", "merchant_uid", "productName", "price", "paidAt",
    ]

    @Test func bothBodyShapesAreVerifiedAndAnsweredWithTheContractKeys() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            for legacy in [false, true] {
                let postId = try await market.product(price: 5000, title: "스위프트 책")
                let impUid = try await market.paid(5000)
                let reply = try await market.validate(impUid, post: postId, as: buyer, legacyBody: legacy)
                #expect(reply.status == 200, "\(reply.text)")
                let json = try reply.json
                #expect(json.keys == Self.paymentKeys)
                #expect(json.string("buyer_id") == buyer.userId)
                #expect(json.string("post_id") == postId)
                #expect(json.string("productName") == "스위프트 책")  // the post's title, not the client's label
                #expect(json["price"] as? Int == 5000)
                #expect(ObjectID.isValid(json.string("payment_id") ?? ""))
                let merchantUid = await market.ledger.payment(impUid)?.merchantUid
                #expect(json.string("merchant_uid") == merchantUid)
                #expect(APIDateFormat.date(from: json.string("paidAt") ?? "") != nil)
                #expect(try await market.payments(impUid: impUid) == 1)
                #expect(try await market.purchaseEvents(impUid: impUid) == 1)
                #expect(try await market.claimState(impUid) == "completed")
            }
            let metrics = try await market.send(.get, "/metrics", as: nil, apiKey: false)
            #expect(metrics.text.contains("sns_payments_recorded_total"), "\(metrics.text.prefix(300))")
        }
    }

    @Test func historyIsMineNewestFirst() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            let other = try await market.buyer()
            var bought: [String] = []
            for price in [1000, 2000, 3000] {
                let postId = try await market.product(price: price)
                let impUid = try await market.paid(price)
                #expect(try await market.validate(impUid, post: postId, as: buyer).status == 200)
                bought.append(postId)
            }
            let otherPost = try await market.product(price: 700)
            #expect(try await market.validate(try await market.paid(700), post: otherPost, as: other).status == 200)

            let reply = try await market.send(.get, "/v1/payments/me", as: buyer)
            #expect(reply.status == 200)
            let data = try #require(try reply.json["data"] as? [[String: Any]])
            #expect(data.count == 3)
            #expect(data.map { $0["post_id"] as? String } == bought.reversed().map { Optional($0) })
            #expect(data.allSatisfy { Set($0.keys) == Self.paymentKeys && $0["buyer_id"] as? String == buyer.userId })

            let empty = try await market.send(.get, "/v1/payments/me", as: try await market.buyer())
            #expect(empty.status == 200)
            #expect(empty.text == #"{"data":[]}"#)
        }
    }

    @Test func headersAndTokensAreCheckedFirst() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            #expect(try await market.send(.get, "/v1/payments/me", as: buyer, apiKey: false).status == 420)
            #expect(try await market.send(.get, "/v1/payments/me", as: nil).status == 401)
            let now = Date()
            let expired = try await market.signer.sign(
                AccessTokenClaims(
                    userId: buyer.userId, sessionId: nil, issuedAt: now.addingTimeInterval(-700),
                    expiresAt: now.addingTimeInterval(-100)))
            #expect(
                try await market.send(
                    .post, "/v1/payments/validation", as: .init(userId: buyer.userId, token: expired),
                    json: #"{"imp_uid":"imp_1","post_id":"p"}"#
                ).status == 419)
        }
    }

    @Test func badInputIs400AndUnknownPostsAre410() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            for body in [
                #"{"post_id":"\#(postId)"}"#, #"{"imp_uid":"imp_1"}"#, #"{"imp_uid":5,"post_id":"x"}"#, "not json",
                #"{"imp_uid":"../users/getToken","post_id":"\#(postId)"}"#, #"{"imp_uid":"","post_id":"\#(postId)"}"#,
            ] {
                let reply = try await market.send(.post, "/v1/payments/validation", as: buyer, json: body)
                #expect(reply.status == 400, "\(body) → \(reply.text)")
                #expect(try reply.json.keys == ["message"])
            }
            // A post the market has never seen: 410, nothing cancelled, but the claim is kept (recorded if the post
            // arrives, refunded when the claim expires).
            let impUid = try await market.paid(5000)
            #expect(try await market.validate(impUid, post: ObjectID.generate(), as: buyer).status == 410)
            #expect(try await market.claimState(impUid) == "pending")
            #expect(await market.ledger.payment(impUid)?.status == .paid)
            // An imp_uid PortOne does not know: 400.
            #expect(try await market.validate("imp_000000000000", post: postId, as: buyer).status == 400)
        }
    }

    @Test func aPaymentForADeletedOrPricelessPostIsRefundedAnd410() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            for (postId, legacy) in [
                (try await market.product(price: 5000, deleted: true), true),
                (try await market.product(price: nil), false),
            ] {
                let impUid = try await market.paid(5000)
                let reply = try await market.validate(impUid, post: postId, as: buyer, legacyBody: legacy)
                #expect(reply.status == 410, "\(reply.text)")
                #expect(await market.ledger.payment(impUid)?.status == .cancelled)
                #expect(try await market.cancelState(impUid) == "done")
                #expect(try await market.payments(impUid: impUid) == 0)
            }
        }
    }

    /// April-2024 apps (BookSNS, BuyOrNot, KeyCat, Uyubudan) keep prices in content fields and send the price in
    /// the validation body: for a post without `price`, that is the amount to verify, with every other rule kept.
    @Test func aPricelessPostIsVerifiedAgainstTheStatedPrice() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            func validate(_ impUid: String, _ postId: String, price: String) async throws -> MarketHarness.Reply {
                try await market.send(
                    .post, "/v1/payments/validation", as: buyer,
                    json: #"{"imp_uid":"\#(impUid)","post_id":"\#(postId)","productName":"책","price":\#(price)}"#)
            }
            // Paid as stated: recorded at that amount, with its event.
            let book = try await market.product(price: nil, title: "데미안")
            let paid = try await market.paid(8000)
            let reply = try await validate(paid, book, price: "8000")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try reply.json["price"] as? Int == 8000)
            #expect(try await market.payments(impUid: paid) == 1)
            #expect(try await market.purchaseEvents(impUid: paid) == 1)
            // Digits in a string count too (a tip of 100 won).
            let tip = try await market.paid(100)
            #expect(try await validate(tip, try await market.product(price: nil), price: #""100""#).status == 200)
            // Paid less than stated: refunded, 400.
            let short = try await market.paid(7000)
            #expect(try await validate(short, try await market.product(price: nil), price: "8000").status == 400)
            #expect(await market.ledger.payment(short)?.status == .cancelled)
            // No usable stated price (absent, zero, negative, text): not for sale, refunded, 410.
            for price in ["null", "0", "-5", #""팔천원""#] {
                let impUid = try await market.paid(8000)
                #expect(try await validate(impUid, try await market.product(price: nil), price: price).status == 410)
                #expect(await market.ledger.payment(impUid)?.status == .cancelled)
            }
            // A post with its own price ignores the stated one.
            let priced = try await market.product(price: 5000)
            let cheap = try await market.paid(1)
            #expect(try await validate(cheap, priced, price: "1").status == 400)
            // The same imp_uid again: 409, nothing recorded twice.
            #expect(try await validate(paid, book, price: "8000").status == 409)
            #expect(try await market.payments(impUid: paid) == 1)
        }
    }

    @Test func unpaidPaymentsAre400AndAReadyOneIsRecordedOncePaid() async throws {
        try await MarketHarness.run { market in
            let buyer = try await market.buyer()
            let postId = try await market.product(price: 5000)
            for status in [PortOnePaymentStatus.failed, .cancelled] {
                let impUid = try await market.paid(5000, status: status)
                #expect(try await market.validate(impUid, post: postId, as: buyer).status == 400)
                #expect(try await market.claimState(impUid) == "rejected")
            }
            // A virtual account awaiting its deposit: 400 now, the claim stays pending, and once PortOne says
            // paid, the re-verifier records it and the app's next call gets its 200.
            let impUid = try await market.paid(5000, status: .ready)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 400)
            #expect(try await market.claimState(impUid) == "pending")
            let merchantUid = try #require(await market.ledger.payment(impUid)?.merchantUid)
            await market.ledger.createPayment(merchantUid: merchantUid, amount: 5000, impUid: impUid, status: .paid)
            let round = try await market.reverifyOnce(asOf: Date().addingTimeInterval(3600))
            #expect(round.recorded == 1)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 200)
            #expect(try await market.validate(impUid, post: postId, as: buyer).status == 409)
        }
    }
}
