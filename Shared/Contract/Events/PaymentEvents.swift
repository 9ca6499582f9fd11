import Foundation

/// `purchase-completed`, published by the market service after a verified payment (keyed by the post id).
public struct PurchaseCompleted: EventPayload, Equatable {
    public static let eventType = EventType.purchaseCompleted
    public var paymentId: String
    public var impUid: String
    public var merchantUid: String
    public var buyerId: String
    public var postId: String
    public var productName: String?
    public var price: Int
    public var paidAt: Date

    public init(
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
