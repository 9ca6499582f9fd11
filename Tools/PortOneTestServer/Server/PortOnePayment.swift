// The payment object as PortOne (iamport) REST API v1 returns it from `GET /payments/{imp_uid}`.

/// Payment status, as iamport spells it.
package enum PortOnePaymentStatus: String, Codable, Sendable, CaseIterable {
    case ready
    case paid
    case cancelled
    case failed
}

/// One entry of a payment's `cancel_history` (and of `PortOneLedger.cancels(of:)`).
package struct PortOneCancel: Sendable, Equatable {
    /// Amount cancelled by this request.
    package var amount: Int
    /// The `reason` the caller gave (nil when it sent none).
    package var reason: String?
    /// Unix seconds (ledger clock) when the cancel was applied.
    package var at: Int
    /// PG transaction id of the cancel.
    package var pgTid: String

    package init(amount: Int, reason: String?, at: Int, pgTid: String) {
        self.amount = amount
        self.reason = reason
        self.at = at
        self.pgTid = pgTid
    }
}

/// A payment, field for field the subset of iamport's payment object our services read.
///
/// Amounts are whole KRW. Times are unix seconds; `0` means "did not happen" (iamport's convention).
package struct PortOnePayment: Sendable, Equatable {
    package var impUid: String
    package var merchantUid: String
    package var amount: Int
    package var cancelAmount: Int
    package var currency: String
    package var status: PortOnePaymentStatus
    package var name: String?
    package var payMethod: String
    package var pgProvider: String
    package var pgTid: String
    package var buyerEmail: String?
    package var buyerName: String?
    /// iamport returns `custom_data` as a JSON *string*; it is stored and returned verbatim.
    package var customData: String?
    package var paidAt: Int
    package var cancelledAt: Int
    package var failedAt: Int
    package var startedAt: Int
    package var cancelReason: String?
    package var cancelHistory: [PortOneCancel]

    /// What may still be cancelled.
    package var cancellableAmount: Int { max(0, amount - cancelAmount) }

    package init(
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
