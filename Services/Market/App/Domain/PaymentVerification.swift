import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// Verifies one claimed payment with PortOne and settles it: recorded (with its `purchase-completed` event, in
/// one transaction), refused (and refunded when money was taken for nothing), or left pending for later.
/// The app's validation call, the webhook and the re-verifier all go through `settle`, and the unique `imp_uid`
/// decides who records a payment when they race, so nothing is ever recorded twice.
struct PaymentVerification: Sendable {
    let store: MarketStore
    let portOne: PortOneClient
    let outbox: Outbox
    let postgres: DatabasePool

    enum Rejected: Sendable, Equatable {
        case unknownPayment
        case notPaid(status: String)
        case amountMismatch(paid: Int, expected: Int, refunded: Bool)
        case postUnavailable(refunded: Bool)
        /// PortOne's `merchant_uid` for this payment is already recorded for another `imp_uid`.
        case merchantUidReused
    }

    enum Settlement: Sendable, Equatable {
        case recorded(PaymentRecord)
        case alreadyRecorded(PaymentRecord)
        case rejected(Rejected)
        /// PortOne says `ready` (e.g. a virtual account awaiting its deposit): the claim stays pending.
        case notYetPaid(status: String)
        /// The post is not (yet) in the market's read model: the claim stays pending.
        case productUnknown
        case unreachable(String)
    }

    enum RecordedBy: String, Sendable { case app, webhook, reverifier }

    func settle(
        _ claim: Claim, recordedBy: RecordedBy, prefetched: PortOnePaymentResponse? = nil, trace: TraceContext,
        logger: Logger
    ) async throws -> Settlement {
        if let existing = try await store.payment(impUid: claim.impUid, logger: logger) {
            return .alreadyRecorded(existing)
        }
        guard let product = try await store.product(claim.postId, logger: logger) else { return .productUnknown }

        let payment: PortOnePaymentResponse
        do {
            var found = prefetched
            if found == nil { found = try await portOne.payment(claim.impUid, logger: logger) }
            guard let found else {
                // The claim is dropped (not kept as rejected), so nobody can hold on to an imp_uid PortOne has not issued yet.
                PaymentMetrics.rejected("unknown_payment")
                try await store.recordRejection(
                    Rejection(
                        impUid: claim.impUid, merchantUid: nil, buyerId: claim.buyerId, postId: claim.postId,
                        reason: "unknown_payment",
                        paidAmount: nil, expectedAmount: claim.amountToVerify(postPrice: product.price),
                        cancelState: .notNeeded, lastError: nil), logger: logger)
                try await store.deleteClaim(impUid: claim.impUid, logger: logger)
                return .rejected(.unknownPayment)
            }
            payment = found
        } catch let error as PortOneError {
            logPortOne(error, logger: logger)
            return .unreachable(error.description)
        }

        if payment.status == "ready" { return .notYetPaid(status: payment.status) }
        guard payment.isPaid else {
            try await reject(
                claim, reason: "not_paid:\(payment.status)", payment: payment,
                expected: claim.amountToVerify(postPrice: product.price), cancel: .notNeeded, logger: logger)
            return .rejected(.notPaid(status: payment.status))
        }
        guard !product.deleted, let price = claim.amountToVerify(postPrice: product.price) else {
            let result = try await refund(
                claim, payment: payment, reason: "post_unavailable", expected: product.price,
                message: "상품 게시글이 삭제되었거나 판매 중이 아닙니다. (post deleted or not for sale)", logger: logger)
            if result == .notOurs { return try await outcome(ofSettled: claim, logger: logger) }
            return .rejected(.postUnavailable(refunded: result == .done))
        }
        guard payment.amount == price, payment.cancelAmount == 0, payment.currency == "KRW" else {
            let result = try await refund(
                claim, payment: payment, reason: "amount_mismatch", expected: price,
                message: "결제 금액이 상품 가격과 다릅니다. (amount does not match the price)", logger: logger)
            if result == .notOurs { return try await outcome(ofSettled: claim, logger: logger) }
            logger.warning(
                "payment amount does not match the post's price; refunded",
                metadata: [
                    "imp_uid": "\(claim.impUid)", "post_id": "\(claim.postId)", "paid": "\(payment.amount)",
                    "price": "\(price)",
                    "refund": "\(result)",
                ])
            return .rejected(.amountMismatch(paid: payment.amount, expected: price, refunded: result == .done))
        }

        let record = PaymentRecord(
            paymentId: ObjectID.generate(), impUid: claim.impUid, merchantUid: payment.merchantUid,
            buyerId: claim.buyerId,
            postId: claim.postId, productName: product.title ?? claim.productName ?? payment.name,
            price: payment.amount,
            paidAt: payment.paidAt ?? Date(), acknowledged: recordedBy == .app)
        let store = self.store
        let outbox = self.outbox
        struct ClaimTaken: Error {}
        struct Duplicate: Error {}
        var inserted = true
        // The buyer's app asks for the post next: posts must show the buyer (read-your-writes, decision 0013).
        let ticket = recordedBy == .app ? outbox.readYourWrites() : .inert
        do {
            try await postgres.transaction(logger: logger) { connection in
                // The claim is the gate: if a refund (or another recorder) took it first, nothing is written.
                guard
                    try await store.takeClaim(
                        impUid: record.impUid, to: .completed, reason: nil, on: connection, logger: logger)
                else {
                    throw ClaimTaken()
                }
                guard
                    try await store.insert(record, recordedBy: recordedBy.rawValue, on: connection, logger: logger)
                        == .inserted
                else {
                    throw Duplicate()  // rolls the claim back to where it was
                }
                try await outbox.append(
                    PurchaseCompleted(
                        paymentId: record.paymentId, impUid: record.impUid, merchantUid: record.merchantUid,
                        buyerId: record.buyerId, postId: record.postId, productName: record.productName,
                        price: record.price, paidAt: record.paidAt),
                    aggregateId: record.postId, trace: trace, awaitedBy: ticket, on: connection, logger: logger)
            }
            await ticket.wait(logger: logger)
        } catch is ClaimTaken {
            return try await outcome(ofSettled: claim, logger: logger)
        } catch is Duplicate {
            inserted = false
        }
        guard inserted else {
            // The imp_uid is recorded already (a racing call), or PortOne reported a merchant_uid we recorded for
            // another payment: that one is refunded, never recorded twice.
            if let existing = try await store.payment(impUid: claim.impUid, logger: logger) {
                return .alreadyRecorded(existing)
            }
            logger.error(
                "payment's merchant_uid is already recorded for another imp_uid; refunding it",
                metadata: [
                    "imp_uid": "\(claim.impUid)", "merchant_uid": "\(payment.merchantUid)",
                ])
            switch try await refund(
                claim, payment: payment, reason: "merchant_uid_reused", expected: price,
                message: "이미 처리된 주문번호의 결제입니다. (merchant_uid already used)", logger: logger)
            {
            case .notOurs: return try await outcome(ofSettled: claim, logger: logger)
            default: return .rejected(.merchantUidReused)
            }
        }
        PaymentMetrics.recorded(by: recordedBy)
        logger.info(
            "payment recorded",
            metadata: [
                "imp_uid": "\(record.impUid)", "payment_id": "\(record.paymentId)", "post_id": "\(record.postId)",
                "price": "\(record.price)", "by": "\(recordedBy.rawValue)",
            ])
        return .recorded(record)
    }

    // MARK: Refusals

    private func reject(
        _ claim: Claim, reason: String, payment: PortOnePaymentResponse?, expected: Int?, cancel: Rejection.CancelState,
        lastError: String? = nil, logger: Logger
    ) async throws {
        PaymentMetrics.rejected(reason.hasPrefix("not_paid") ? "not_paid" : reason)
        try await store.recordRejection(
            Rejection(
                impUid: claim.impUid, merchantUid: payment?.merchantUid, buyerId: claim.buyerId, postId: claim.postId,
                reason: reason,
                paidAmount: payment?.amount, expectedAmount: expected, cancelState: cancel, lastError: lastError),
            logger: logger)
        try await store.settleClaim(impUid: claim.impUid, state: .rejected, reason: reason, logger: logger)
    }

    enum RefundResult: Sendable, Equatable { case done, pending, refused, notOurs }

    /// Gives the money back for a payment we refuse. The claim is taken first (pending → rejected): if a recorder
    /// took it already, nothing is cancelled (`notOurs`). If PortOne cannot be reached now, the cancel is left
    /// pending for the re-verifier.
    func refund(
        _ claim: Claim, payment: PortOnePaymentResponse, reason: String, expected: Int?, message: String,
        logger: Logger
    ) async throws -> RefundResult {
        guard try await store.takeClaim(impUid: claim.impUid, to: .rejected, reason: reason, logger: logger) else {
            return .notOurs
        }
        let state: Rejection.CancelState
        var lastError: String?
        do {
            switch try await portOne.cancel(
                claim.impUid, checksum: payment.amount - payment.cancelAmount, reason: message, logger: logger)
            {
            case .cancelled, .alreadyCancelled:
                state = .done
            case .refused(let why):
                state = .refused
                lastError = why
                logger.error(
                    "PortOne refused to cancel a refused payment; needs an operator",
                    metadata: [
                        "imp_uid": "\(claim.impUid)", "reason": "\(why)",
                    ])
            }
        } catch let error as PortOneError {
            logPortOne(error, logger: logger)
            state = .pending
            lastError = error.description
        }
        PaymentMetrics.refunds(state.rawValue)
        try await reject(
            claim, reason: reason, payment: payment, expected: expected, cancel: state, lastError: lastError,
            logger: logger)
        switch state {
        case .done, .notNeeded: return .done
        case .pending: return .pending
        case .refused: return .refused
        }
    }

    /// What became of a claim someone else settled: the recorded payment, or the refusal on record.
    func outcome(ofSettled claim: Claim, logger: Logger) async throws -> Settlement {
        if let existing = try await store.payment(impUid: claim.impUid, logger: logger) {
            return .alreadyRecorded(existing)
        }
        guard let rejection = try await store.rejection(impUid: claim.impUid, logger: logger) else {
            return .rejected(.unknownPayment)
        }
        let refunded = rejection.cancelState == .done
        switch rejection.reason {
        case "amount_mismatch":
            return .rejected(
                .amountMismatch(
                    paid: rejection.paidAmount ?? 0, expected: rejection.expectedAmount ?? 0, refunded: refunded))
        case "post_unavailable", "expired": return .rejected(.postUnavailable(refunded: refunded))
        case "merchant_uid_reused": return .rejected(.merchantUidReused)
        case let reason where reason.hasPrefix("not_paid:"):
            return .rejected(.notPaid(status: String(reason.dropFirst(9))))
        default: return .rejected(.unknownPayment)
        }
    }

    /// The re-verifier's last word on a claim older than its maximum age: a payment PortOne says is paid but that
    /// was never recorded is refunded (never kept without a record); otherwise the claim is given up.
    func expire(_ claim: Claim, logger: Logger) async throws -> Settlement {
        if let existing = try await store.payment(impUid: claim.impUid, logger: logger) {
            return .alreadyRecorded(existing)
        }
        let payment: PortOnePaymentResponse?
        do {
            payment = try await portOne.payment(claim.impUid, logger: logger)
        } catch let error as PortOneError {
            logPortOne(error, logger: logger)
            return .unreachable(error.description)
        }
        guard let payment, payment.isPaid else {
            try await store.settleClaim(
                impUid: claim.impUid, state: .expired, reason: "not settled in time", logger: logger)
            return .rejected(.notPaid(status: payment?.status ?? "unknown"))
        }
        let result = try await refund(
            claim, payment: payment, reason: "expired", expected: nil,
            message: "결제 확인 기한이 지나 자동 취소되었습니다. (could not be verified in time)", logger: logger)
        if result == .notOurs { return try await outcome(ofSettled: claim, logger: logger) }
        logger.warning(
            "claim expired with a paid, unrecorded payment; refunded",
            metadata: ["imp_uid": "\(claim.impUid)", "refund": "\(result)"])
        return .rejected(.postUnavailable(refunded: result == .done))
    }

    /// Retries one cancel the re-verifier leased. Returns the new state.
    func retryCancel(impUid: String, paidAmount: Int, attempts: Int, retryBase: Duration, logger: Logger) async throws
        -> Rejection.CancelState
    {
        if try await store.payment(impUid: impUid, logger: logger) != nil {
            logger.critical(
                "a pending refund belongs to a recorded payment; not refunding it", metadata: ["imp_uid": "\(impUid)"])
            try await store.updateCancel(
                impUid: impUid, state: .refused, retryAfter: nil, error: "payment is recorded", logger: logger)
            return .refused
        }
        do {
            // The refundable amount as PortOne sees it now (an earlier attempt may have gone through).
            guard let payment = try await portOne.payment(impUid, logger: logger), payment.status != "cancelled" else {
                try await store.updateCancel(impUid: impUid, state: .done, retryAfter: nil, error: nil, logger: logger)
                return .done
            }
            switch try await portOne.cancel(
                impUid, checksum: payment.amount - payment.cancelAmount, reason: "결제 검증 실패로 인한 자동 취소 (refused payment)",
                logger: logger)
            {
            case .cancelled, .alreadyCancelled:
                try await store.updateCancel(impUid: impUid, state: .done, retryAfter: nil, error: nil, logger: logger)
                logger.info("pending cancel completed", metadata: ["imp_uid": "\(impUid)"])
                return .done
            case .refused(let why):
                try await store.updateCancel(
                    impUid: impUid, state: .refused, retryAfter: nil, error: why, logger: logger)
                logger.error(
                    "PortOne refused a pending cancel; needs an operator",
                    metadata: ["imp_uid": "\(impUid)", "reason": "\(why)"])
                return .refused
            }
        } catch let error as PortOneError {
            let delay = Backoff.delay(attempt: attempts + 1, base: retryBase, cap: .seconds(3600))
            try await store.updateCancel(
                impUid: impUid, state: .pending, retryAfter: delay, error: error.description, logger: logger)
            return .pending
        }
    }

    private func logPortOne(_ error: PortOneError, logger: Logger) {
        switch error {
        case .unreachable: PaymentMetrics.portOneFailure("unreachable")
        case .credentialsRejected: PaymentMetrics.portOneFailure("credentials")
        case .unexpected: PaymentMetrics.portOneFailure("unexpected")
        }
        switch error {
        case .credentialsRejected:
            logger.critical(
                "PortOne rejected our credentials: check SNS_PORTONE_IMP_KEY / SNS_PORTONE_IMP_SECRET",
                metadata: ["error": "\(error)"])
        case .unreachable, .unexpected:
            logger.error("PortOne call failed", metadata: ["error": "\(error)"])
        }
    }
}
