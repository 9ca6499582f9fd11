import Foundation
import PortOneTestServer
import SNSPlatform
import SNSTestSupport
import Testing

@testable import MarketService

/// The market's price read model, fed by post and user events through the real broker: the price that counts
/// is the newest snapshot's, a deletion is final, and a withdrawn seller's posts are no longer for sale.
@Suite("Market product read model")
struct ProductReadModelTests {
    func snapshot(_ postId: String, seller: String, price: Int?, at: Date) -> PostSnapshot {
        PostSnapshot(
            postId: postId, userId: seller, productId: "snapBook_market", title: "중고 책", price: price, files: [],
            hashTags: [], createdAt: at, updatedAt: at)
    }

    @Test func pricesFollowTheNewestSnapshotAndDeletionsAreFinal() async throws {
        try await TestPlatform.with { platform in
            try await MarketHarness.run(.init(consumesEvents: true)) { market in
                let buyer = try await market.buyer()
                let seller = ObjectID.generate()
                let postId = ObjectID.generate()
                let t0 = Date()
                try await platform.publish(
                    PostCreated(post: snapshot(postId, seller: seller, price: 1000, at: t0)), key: postId)
                let raised = try await platform.publish(
                    PostUpdated(post: snapshot(postId, seller: seller, price: 2000, at: t0 + 1)), key: postId)
                try await eventually("the price update is applied") { try await market.processed(raised) }
                // An older snapshot delivered late (a replay) does not win.
                let stale = try await platform.publish(
                    PostUpdated(post: snapshot(postId, seller: seller, price: 1500, at: t0 + 0.5)), key: postId)
                try await eventually("the stale update is consumed") { try await market.processed(stale) }
                #expect(try await market.price(of: postId) == 2000)

                // old price
                #expect(try await market.validate(try await market.paid(1000), post: postId, as: buyer).status == 400)
                #expect(try await market.validate(try await market.paid(2000), post: postId, as: buyer).status == 200)

                // Deleted: 410 and refunded; a creation replayed after the deletion does not bring it back.
                let deleted = try await platform.publish(
                    PostDeleted(
                        postId: postId, userId: seller, productId: "snapBook_market",
                        files: [], deletedAt: t0 + 2), key: postId)
                try await eventually("the deletion is applied") { try await market.processed(deleted) }
                let replayed = try await platform.publish(
                    PostCreated(post: snapshot(postId, seller: seller, price: 2000, at: t0)), key: postId)
                try await eventually("the replayed creation is consumed") { try await market.processed(replayed) }
                let late = try await market.paid(2000)
                #expect(try await market.validate(late, post: postId, as: buyer).status == 410)
                #expect(await market.ledger.payment(late)?.status == .cancelled)

                // A withdrawn seller's posts vanish everywhere, the market included.
                let leaving = ObjectID.generate()
                let other = ObjectID.generate()
                let listed = try await platform.publish(
                    PostCreated(post: snapshot(other, seller: leaving, price: 3000, at: t0)), key: other)
                let withdrawn = try await platform.publish(
                    UserWithdrawn(userId: leaving, withdrawnAt: t0 + 3), key: leaving)
                try await eventually("the listing and the withdrawal are applied") {
                    let both = (try await market.processed(listed), try await market.processed(withdrawn))
                    return both.0 && both.1
                }
                #expect(try await market.price(of: other) == 3000)
                #expect(try await market.validate(try await market.paid(3000), post: other, as: buyer).status == 410)
                // …and a withdrawn buyer's token is refused.
                let gone = try await market.buyer()
                let bye = try await platform.publish(
                    UserWithdrawn(userId: gone.userId, withdrawnAt: t0 + 3), key: gone.userId)
                try await eventually("the buyer's withdrawal is applied") { try await market.processed(bye) }
                #expect(try await market.send(.get, "/v1/payments/me", as: gone).status == 401)
            }
        }
    }
}
