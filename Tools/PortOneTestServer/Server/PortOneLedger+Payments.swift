// Payments: creation as if a buyer had just paid, look-up, and cancellation with iamport's rules.

/// The answer to a cancel request.
package enum PortOneCancelOutcome: Sendable, Equatable {
    /// Applied; the payment as it now is.
    case cancelled(PortOnePayment)
    /// Refused with iamport's `code: 1` and this message (HTTP 200, like the real API).
    case rejected(message: String)
}

/// iamport's messages for refused cancels.
package enum PortOneCancelMessage {
    package static let notFound = "취소할 결제건이 존재하지 않습니다."
    package static let alreadyCancelled = "이미 전액취소된 주문입니다."
    package static let notPaid = "결제완료 상태가 아닌 결제건은 취소할 수 없습니다."
    package static let amountExceeded = "취소요청금액이 취소가능잔액을 초과합니다."
    package static let invalidAmount = "취소요청금액이 올바르지 않습니다."
    package static let checksumMismatch = "[취소실패] 취소가능잔액 검증에 실패하였습니다."
}

extension PortOneLedger {
    /// Creates a payment as if a buyer had just completed it through the SDK, and returns it.
    ///
    /// `impUid` defaults to a fresh `imp_` + 12 digits. An existing payment with the same imp_uid is replaced.
    /// The amount is taken as given — to simulate a tampered payment, pass an amount other than the price.
    /// Status times follow iamport: `paid` sets `paid_at`, `failed` sets `failed_at`, `cancelled` sets
    /// `paid_at`, `cancelled_at` and a full `cancel_amount`; `ready` sets none.
    @discardableResult
    package func createPayment(
        merchantUid: String,
        amount: Int,
        impUid: String? = nil,
        status: PortOnePaymentStatus = .paid,
        name: String? = nil,
        buyerEmail: String? = nil,
        buyerName: String? = nil,
        customData: String? = nil
    ) -> PortOnePayment {
        let now = self.now
        let impUid = impUid ?? freshImpUid()
        var payment = PortOnePayment(
            impUid: impUid,
            merchantUid: merchantUid,
            amount: amount,
            status: status,
            name: name,
            pgTid: "StdpayCARDINIpayTest" + PortOneIdentifiers.digits(14),
            buyerEmail: buyerEmail,
            buyerName: buyerName,
            customData: customData,
            startedAt: now
        )
        switch status {
        case .ready: break
        case .paid: payment.paidAt = now
        case .failed: payment.failedAt = now
        case .cancelled:
            payment.paidAt = now
            payment.cancelledAt = now
            payment.cancelAmount = amount
        }
        if payments.updateValue(payment, forKey: impUid) == nil {
            paymentOrder.append(impUid)
        }
        return payment
    }

    /// The payment with this imp_uid.
    package func payment(_ impUid: String) -> PortOnePayment? {
        payments[impUid]
    }

    /// The most recently created payment with this merchant_uid.
    package func payment(merchantUid: String) -> PortOnePayment? {
        paymentOrder.reversed().lazy.compactMap { self.payments[$0] }.first { $0.merchantUid == merchantUid }
    }

    /// Every payment, in creation order.
    package func allPayments() -> [PortOnePayment] {
        paymentOrder.compactMap { payments[$0] }
    }

    /// The cancels applied to a payment, oldest first.
    package func cancels(of impUid: String) -> [PortOneCancel] {
        payments[impUid]?.cancelHistory ?? []
    }

    /// How many `GET /payments/{imp_uid}` calls asked for this imp_uid (every outcome counts).
    package func lookups(of impUid: String) -> Int {
        lookupCounts[impUid, default: 0]
    }

    /// How many `POST /payments/cancel` calls resolved to this imp_uid (every outcome counts).
    package func cancelRequests(of impUid: String) -> Int {
        cancelRequestCounts[impUid, default: 0]
    }

    /// Applies a cancel with iamport's rules: identify by `impUid`, else `merchantUid`; `amount` nil or 0 =
    /// whatever is left; `checksum`, when given, must equal the cancellable amount before this cancel.
    package func cancel(
        impUid: String?,
        merchantUid: String?,
        amount: Int? = nil,
        reason: String? = nil,
        checksum: Int? = nil
    ) -> PortOneCancelOutcome {
        guard let found = resolvePayment(impUid: impUid, merchantUid: merchantUid) else {
            return .rejected(message: PortOneCancelMessage.notFound)
        }
        var payment = found
        if payment.status == .cancelled || (payment.status == .paid && payment.cancellableAmount == 0) {
            return .rejected(message: PortOneCancelMessage.alreadyCancelled)
        }
        guard payment.status == .paid else { return .rejected(message: PortOneCancelMessage.notPaid) }
        let remaining = payment.cancellableAmount
        if let checksum, checksum != remaining {
            return .rejected(message: PortOneCancelMessage.checksumMismatch)
        }
        let requested = (amount == nil || amount == 0) ? remaining : amount!
        guard requested > 0 else { return .rejected(message: PortOneCancelMessage.invalidAmount) }
        guard requested <= remaining else { return .rejected(message: PortOneCancelMessage.amountExceeded) }

        let now = self.now
        payment.cancelAmount += requested
        payment.cancelReason = reason
        payment.cancelHistory.append(
            PortOneCancel(
                amount: requested, reason: reason, at: now, pgTid: "StdpayCancel" + PortOneIdentifiers.digits(14))
        )
        if payment.cancellableAmount == 0 {
            payment.status = .cancelled
            payment.cancelledAt = now
        }
        payments[payment.impUid] = payment
        return .cancelled(payment)
    }

    func resolvePayment(impUid: String?, merchantUid: String?) -> PortOnePayment? {
        if let impUid, !impUid.isEmpty { return payments[impUid] }
        if let merchantUid, !merchantUid.isEmpty { return payment(merchantUid: merchantUid) }
        return nil
    }

    private func freshImpUid() -> String {
        while true {
            let candidate = "imp_" + PortOneIdentifiers.digits(12)
            if payments[candidate] == nil { return candidate }
        }
    }
}
