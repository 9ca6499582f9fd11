import Foundation

/// A verified, recorded purchase (`market.payments`).
struct PaymentRecord: Sendable, Equatable {
    var paymentId: String
    var impUid: String
    var merchantUid: String
    var buyerId: String
    var postId: String
    var productName: String?
    var price: Int
    var paidAt: Date
    var acknowledged: Bool

    typealias Row = (String, String, String, String, String, String?, Int, Date, Bool)

    init(
        paymentId: String, impUid: String, merchantUid: String, buyerId: String, postId: String, productName: String?,
        price: Int, paidAt: Date, acknowledged: Bool
    ) {
        self.paymentId = paymentId
        self.impUid = impUid
        self.merchantUid = merchantUid
        self.buyerId = buyerId
        self.postId = postId
        self.productName = productName
        self.price = price
        self.paidAt = paidAt
        self.acknowledged = acknowledged
    }

    init(_ row: Row) {
        self.init(
            paymentId: row.0, impUid: row.1, merchantUid: row.2, buyerId: row.3, postId: row.4, productName: row.5,
            price: row.6, paidAt: row.7, acknowledged: row.8)
    }
}

/// Someone asked us to verify `impUid` as their purchase of `postId` (the app's validation call, or the
/// payment's own `custom_data` seen by a webhook).
struct Claim: Sendable, Equatable {
    enum Source: String, Sendable { case app, customData = "custom_data" }
    enum State: String, Sendable { case pending, completed, rejected, expired }

    var impUid: String
    var buyerId: String
    var postId: String
    var productName: String?
    /// The price the buyer's app sent with its validation call. It is the amount to verify only for a post that
    /// carries no `price` of its own (April-2024 apps keep prices in content fields; decision 0013).
    var statedPrice: Int?
    var source: Source
    var state: State = .pending

    typealias Row = (String, String, String, String?, String, String, Int?)

    init(impUid: String, buyerId: String, postId: String, productName: String?, statedPrice: Int? = nil, source: Source)
    {
        self.impUid = impUid
        self.buyerId = buyerId
        self.postId = postId
        self.productName = productName
        self.statedPrice = statedPrice
        self.source = source
    }

    init(_ row: Row) {
        self.init(
            impUid: row.0, buyerId: row.1, postId: row.2, productName: row.3, statedPrice: row.6,
            source: Source(rawValue: row.4) ?? .app)
        self.state = State(rawValue: row.5) ?? .pending
    }

    /// The amount PortOne's payment must equal: the post's own price when it has one (the client's is then
    /// ignored), else the price the buyer's app stated; `nil` when neither exists (not for sale).
    func amountToVerify(postPrice: Int?) -> Int? {
        if let postPrice { return postPrice }
        guard let statedPrice, statedPrice > 0 else { return nil }
        return statedPrice
    }
}

/// A payment we refused, and whether its money has been given back.
struct Rejection: Sendable, Equatable {
    enum CancelState: String, Sendable { case notNeeded = "not_needed", pending, done, refused }

    var impUid: String
    var merchantUid: String?
    var buyerId: String?
    var postId: String?
    var reason: String
    var paidAmount: Int?
    var expectedAmount: Int?
    var cancelState: CancelState
    var lastError: String?
}
