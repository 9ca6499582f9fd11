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
    let postgres: PostgresClient

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

    func settle(_ claim: Claim, recordedBy: RecordedBy, prefetched: PortOnePaymentResponse? = nil, trace: TraceContext,
                logger: Logger) async throws -> Settlement {
        if let existing = try await store.payment(impUid: claim.impUid, logger: logger) { return .alreadyRecorded(existing) }
        guard let product = try await store.product(claim.postId, logger: logger) else { return .productUnknown }

        let payment: PortOnePaymentResponse
        do {
            var found = prefetched
            if found == nil { found = try await portOne.payment(claim.impUid, logger: logger) }
            guard let found else {
                // The claim is dropped (not kept as rejected), so nobody can hold on to an imp_uid PortOne has not issued yet.
                PaymentMetrics.rejected("unknown_payment")
                try await store.recordRejection(Rejection(
                    impUid: claim.impUid, merchantUid: nil, buyerId: claim.buyerId, postId: claim.postId, reason: "unknown_payment",
                    paidAmount: nil, expectedAmount: product.price, cancelState: .notNeeded, lastError: nil), logger: logger)
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
            try await reject(claim, reason: "not_paid:\(payment.status)", payment: payment, expected: product.price, cancel: .notNeeded, logger: logger)
            return .rejected(.notPaid(status: payment.status))
        }
        guard !product.deleted, let price = product.price else {
            let refunded = try await refund(claim, payment: payment, reason: "post_unavailable", expected: product.price,
                                            message: "상품 게시글이 삭제되었거나 판매 중이 아닙니다. (post deleted or not for sale)", logger: logger)
            return .rejected(.postUnavailable(refunded: refunded))
        }
        guard payment.amount == price, payment.cancelAmount == 0, payment.currency == "KRW" else {
            let refunded = try await refund(claim, payment: payment, reason: "amount_mismatch", expected: price,
                                            message: "결제 금액이 상품 가격과 다릅니다. (amount does not match the price)", logger: logger)
            logger.warning("payment amount does not match the post's price; refunded", metadata: [
                "imp_uid": "\(claim.impUid)", "post_id": "\(claim.postId)", "paid": "\(payment.amount)", "price": "\(price)",
                "refunded": "\(refunded)"])
            return .rejected(.amountMismatch(paid: payment.amount, expected: price, refunded: refunded))
        }

        let record = PaymentRecord(
            paymentId: ObjectID.generate(), impUid: claim.impUid, merchantUid: payment.merchantUid, buyerId: claim.buyerId,
            postId: claim.postId, productName: product.title ?? claim.productName ?? payment.name, price: payment.amount,
            paidAt: payment.paidAt ?? Date(), acknowledged: recordedBy == .app)
        let store = self.store
        let outbox = self.outbox
        let inserted = try await postgres.transaction(logger: logger) { connection -> Bool in
            guard try await store.insert(record, recordedBy: recordedBy.rawValue, on: connection, logger: logger) == .inserted else { return false }
            try await outbox.append(
                PurchaseCompleted(paymentId: record.paymentId, impUid: record.impUid, merchantUid: record.merchantUid,
                                  buyerId: record.buyerId, postId: record.postId, productName: record.productName,
                                  price: record.price, paidAt: record.paidAt),
                aggregateId: record.postId, trace: trace, on: connection, logger: logger)
            try await store.settleClaim(impUid: record.impUid, state: .completed, reason: nil, on: connection, logger: logger)
            return true
        }
        guard inserted else {
            // Someone recorded it between our first look and now: by imp_uid (a racing call), or by merchant_uid.
            if let existing = try await store.payment(impUid: claim.impUid, logger: logger) { return .alreadyRecorded(existing) }
            logger.error("payment's merchant_uid is already recorded for another imp_uid; not recorded", metadata: [
                "imp_uid": "\(claim.impUid)", "merchant_uid": "\(payment.merchantUid)"])
            try await reject(claim, reason: "merchant_uid_reused", payment: payment, expected: price, cancel: .notNeeded, logger: logger)
            return .rejected(.merchantUidReused)
        }
        PaymentMetrics.recorded(by: recordedBy)
        logger.info("payment recorded", metadata: [
            "imp_uid": "\(record.impUid)", "payment_id": "\(record.paymentId)", "post_id": "\(record.postId)",
            "price": "\(record.price)", "by": "\(recordedBy.rawValue)"])
        return .recorded(record)
    }

    // MARK: Refusals

    private func reject(_ claim: Claim, reason: String, payment: PortOnePaymentResponse?, expected: Int?, cancel: Rejection.CancelState,
                        lastError: String? = nil, logger: Logger) async throws {
        PaymentMetrics.rejected(reason.hasPrefix("not_paid") ? "not_paid" : reason)
        try await store.recordRejection(Rejection(
            impUid: claim.impUid, merchantUid: payment?.merchantUid, buyerId: claim.buyerId, postId: claim.postId, reason: reason,
            paidAmount: payment?.amount, expectedAmount: expected, cancelState: cancel, lastError: lastError), logger: logger)
        try await store.settleClaim(impUid: claim.impUid, state: .rejected, reason: reason, logger: logger)
    }

    /// Gives the money back for a payment we refuse. If PortOne cannot be reached now, the cancel is left pending
    /// for the re-verifier. Returns whether the payment is cancelled now.
    private func refund(_ claim: Claim, payment: PortOnePaymentResponse, reason: String, expected: Int?, message: String,
                        logger: Logger) async throws -> Bool {
        let state: Rejection.CancelState
        var lastError: String?
        do {
            switch try await portOne.cancel(claim.impUid, checksum: payment.amount - payment.cancelAmount, reason: message, logger: logger) {
            case .cancelled, .alreadyCancelled:
                state = .done
            case .refused(let why):
                state = .refused
                lastError = why
                logger.error("PortOne refused to cancel a refused payment; needs an operator", metadata: [
                    "imp_uid": "\(claim.impUid)", "reason": "\(why)"])
            }
        } catch let error as PortOneError {
            logPortOne(error, logger: logger)
            state = .pending
            lastError = error.description
        }
        PaymentMetrics.refunds(state.rawValue)
        try await reject(claim, reason: reason, payment: payment, expected: expected, cancel: state, lastError: lastError, logger: logger)
        return state == .done
    }

    /// Retries one cancel the re-verifier leased. Returns the new state.
    func retryCancel(impUid: String, paidAmount: Int, attempts: Int, retryBase: Duration, logger: Logger) async throws -> Rejection.CancelState {
        do {
            switch try await portOne.cancel(impUid, checksum: paidAmount, reason: "결제 검증 실패로 인한 자동 취소 (refused payment)", logger: logger) {
            case .cancelled, .alreadyCancelled:
                try await store.updateCancel(impUid: impUid, state: .done, retryAfter: nil, error: nil, logger: logger)
                logger.info("pending cancel completed", metadata: ["imp_uid": "\(impUid)"])
                return .done
            case .refused(let why):
                try await store.updateCancel(impUid: impUid, state: .refused, retryAfter: nil, error: why, logger: logger)
                logger.error("PortOne refused a pending cancel; needs an operator", metadata: ["imp_uid": "\(impUid)", "reason": "\(why)"])
                return .refused
            }
        } catch let error as PortOneError {
            let delay = Backoff.delay(attempt: attempts + 1, base: retryBase, cap: .seconds(3600))
            try await store.updateCancel(impUid: impUid, state: .pending, retryAfter: delay, error: error.description, logger: logger)
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
            logger.critical("PortOne rejected our credentials: check SNS_PORTONE_IMP_KEY / SNS_PORTONE_IMP_SECRET", metadata: ["error": "\(error)"])
        case .unreachable, .unexpected:
            logger.error("PortOne call failed", metadata: ["error": "\(error)"])
        }
    }
}
