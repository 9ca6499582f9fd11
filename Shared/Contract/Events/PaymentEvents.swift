import Foundation

/// `purchase-completed`, published by the market service after a verified payment (keyed by the post id).
package struct PurchaseCompleted: EventPayload, Equatable {
    package static let eventType = EventType.purchaseCompleted
    package var paymentId: String
    package var impUid: String
    package var merchantUid: String
    package var buyerId: String
    package var postId: String
    package var productName: String?
    package var price: Int
    package var paidAt: Date

    package init(
        paymentId: String, impUid: String, merchantUid: String, buyerId: String, postId: String,
        productName: String?, price: Int, paidAt: Date
    ) {
        self.paymentId = paymentId
        self.impUid = impUid
        self.merchantUid = merchantUid
        self.buyerId = buyerId
        self.postId = postId
        self.productName = productName
        self.price = price
        self.paidAt = paidAt
    }

    enum CodingKeys: String, CodingKey {
        case paymentId = "payment_id", impUid = "imp_uid", merchantUid = "merchant_uid", buyerId = "buyer_id"
        case postId = "post_id", productName = "product_name", price, paidAt = "paid_at"
    }
}
