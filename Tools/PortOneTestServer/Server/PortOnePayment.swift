// The payment object as PortOne (iamport) REST API v1 returns it from `GET /payments/{imp_uid}`.

/// Payment status, as iamport spells it.
public enum PortOnePaymentStatus: String, Codable, Sendable, CaseIterable {
    case ready
    case paid
    case cancelled
    case failed
}

/// One entry of a payment's `cancel_history` (and of `PortOneLedger.cancels(of:)`).
public struct PortOneCancel: Sendable, Equatable {
    /// Amount cancelled by this request.
    public var amount: Int
    /// The `reason` the caller gave (nil when it sent none).
    public var reason: String?
    /// Unix seconds (ledger clock) when the cancel was applied.
    public var at: Int
    /// PG transaction id of the cancel.
    public var pgTid: String

    public init(amount: Int, reason: String?, at: Int, pgTid: String) {
        self.amount = amount
        self.reason = reason
        self.at = at
        self.pgTid = pgTid
    }
}

/// A payment, field for field the subset of iamport's payment object our services read.
///
/// Amounts are whole KRW. Times are unix seconds; `0` means "did not happen" (iamport's convention).
public struct PortOnePayment: Sendable, Equatable {
    public var impUid: String
    public var merchantUid: String
    public var amount: Int
    public var cancelAmount: Int
    public var currency: String
    public var status: PortOnePaymentStatus
    public var name: String?
    public var payMethod: String
    public var pgProvider: String
    public var pgTid: String
    public var buyerEmail: String?
    public var buyerName: String?
    /// iamport returns `custom_data` as a JSON *string*; it is stored and returned verbatim.
    public var customData: String?
    public var paidAt: Int
    public var cancelledAt: Int
    public var failedAt: Int
    public var startedAt: Int
    public var cancelReason: String?
    public var cancelHistory: [PortOneCancel]

    /// What may still be cancelled.
    public var cancellableAmount: Int { max(0, amount - cancelAmount) }

    public init(
        impUid: String,
        merchantUid: String,
        amount: Int,
        cancelAmount: Int = 0,
        currency: String = "KRW",
        status: PortOnePaymentStatus,
        name: String? = nil,
        payMethod: String = "card",
        pgProvider: String = "html5_inicis",
        pgTid: String,
        buyerEmail: String? = nil,
        buyerName: String? = nil,
        customData: String? = nil,
        paidAt: Int = 0,
        cancelledAt: Int = 0,
        failedAt: Int = 0,
        startedAt: Int,
        cancelReason: String? = nil,
        cancelHistory: [PortOneCancel] = []
    ) {
        self.impUid = impUid
        self.merchantUid = merchantUid
        self.amount = amount
        self.cancelAmount = cancelAmount
        self.currency = currency
        self.status = status
        self.name = name
        self.payMethod = payMethod
        self.pgProvider = pgProvider
        self.pgTid = pgTid
        self.buyerEmail = buyerEmail
        self.buyerName = buyerName
        self.customData = customData
        self.paidAt = paidAt
        self.cancelledAt = cancelledAt
        self.failedAt = failedAt
        self.startedAt = startedAt
        self.cancelReason = cancelReason
        self.cancelHistory = cancelHistory
    }
}
