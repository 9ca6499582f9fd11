import Foundation
import Logging
import SNSPlatform

/// A buyer's payment validation (`POST /v1/payments/validation`). The amount that counts is the post's price in the market's read model; the
/// client's `price` counts only for a post without one (April-2024 apps keep prices in content fields; decision
/// 0013). Answers:
/// - 200 `{payment_id, buyer_id, post_id, merchant_uid, productName, price, paidAt}`: verified and recorded (or
///   recorded in the background by a webhook / the re-verifier and not yet answered to this buyer);
/// - 400: unknown `imp_uid`, not paid, or an amount other than the price (the payment is then cancelled);
/// - 409: this `imp_uid` was already validated (also: claimed by another account);
/// - 410: the post is unknown, deleted, or not for sale (a payment taken for a deleted post is refunded; for an
///   unknown post the claim is kept: recorded if the post appears, refunded when the claim expires);
/// - 429: PortOne cannot be reached now. Nothing is recorded twice: the app may retry, and the claim is completed
///   in the background when PortOne is back (decision 0007).
struct PaymentValidation: Sendable {
    let deps: MarketDependencies

    /// The recorded payment for the caller, or the error the contract gives.
    func validate(_ body: ValidationRequest, by caller: Caller) async throws -> PaymentRecord {
        let impUid = body.impUid.trimmingCharacters(in: .whitespaces)
        let postId = body.postId.trimmingCharacters(in: .whitespaces)
        guard PaymentInput.validImpUid(impUid) else {
            throw APIError.badRequest("유효하지 않은 imp_uid 입니다. (invalid imp_uid)")
        }
        guard PaymentInput.validPostId(postId) else {
            throw APIError.badRequest("유효하지 않은 post_id 입니다. (invalid post_id)")
        }
        let (me, logger) = (caller.userId, caller.logger)
        if let existing = try await deps.store.payment(impUid: impUid, logger: logger) {
            return try await answerRecorded(existing, me: me, logger: logger)
        }
        let known = try await deps.store.product(postId, logger: logger) != nil
        // The claim is kept even for a post the market does not know (yet): if the buyer has paid, the re-verifier
        // records the purchase once the post arrives, or refunds it when the claim expires.
        let claim = try await deps.store.claim(
            Claim(
                impUid: impUid, buyerId: me, postId: postId, productName: body.productName,
                statedPrice: body.price, source: .app),
            firstRetry: deps.reverifyDelay, logger: logger)
        guard claim.buyerId == me else {
            throw APIError.conflict("다른 계정이 검증 요청한 결제입니다. (imp_uid claimed by another account)")
        }
        guard claim.postId == postId else {
            throw APIError.badRequest("이 결제는 다른 게시글에 대해 검증 요청되었습니다. (imp_uid already claimed for another post)")
        }
        guard known else { throw APIError.gone("게시글을 찾을 수 없습니다. (post not found)") }

        // A claim settled before (refused and refunded, or recorded) is answered from the record, never settled again.
        let settlement =
            claim.state == .rejected || claim.state == .completed
            ? try await deps.verification.outcome(ofSettled: claim, logger: logger)
            : try await deps.verification.settle(claim, recordedBy: .app, trace: caller.trace, logger: logger)
        switch settlement {
        case .recorded(let record):
            return record
        case .alreadyRecorded(let record):
            return try await answerRecorded(record, me: me, logger: logger)
        case .rejected(.unknownPayment):
            throw APIError.badRequest("결제 정보를 찾을 수 없습니다. (unknown imp_uid)")
        case .rejected(.notPaid(let status)):
            throw APIError.badRequest("결제가 완료되지 않았습니다. (payment status is '\(status)', not 'paid')")
        case .rejected(.amountMismatch(_, _, let refunded)):
            throw APIError.badRequest(
                refunded
                    ? "결제 금액이 상품 가격과 달라 결제를 취소했습니다. (amount does not match the post's price; the payment was cancelled)"
                    : "결제 금액이 상품 가격과 달라 결제 취소를 진행 중입니다. (amount does not match the post's price; it will be cancelled)")
        case .rejected(.postUnavailable(let refunded)):
            throw APIError.gone(
                refunded
                    ? "게시글이 삭제되었거나 판매 중이 아니어서 결제를 취소했습니다. (post deleted or not for sale; the payment was cancelled)"
                    : "게시글이 삭제되었거나 판매 중이 아닙니다. 결제 취소를 진행 중입니다. (post deleted or not for sale; it will be cancelled)")
        case .rejected(.merchantUidReused):
            throw APIError.badRequest("이미 처리된 주문번호의 결제라서 취소했습니다. (merchant_uid already used; the payment is cancelled)")
        case .notYetPaid(let status):
            throw APIError.badRequest("결제가 아직 완료되지 않았습니다. (payment status is '\(status)'; it is recorded once paid)")
        case .productUnknown:
            throw APIError.gone("게시글을 찾을 수 없습니다. (post not found)")
        case .unreachable:
            try await deps.store.postponeClaim(
                impUid: impUid, delay: deps.reverifyDelay, reason: "PortOne unreachable during the app's call",
                logger: logger)
            throw APIError(
                429,
                "결제 확인 서버에 연결할 수 없습니다. 잠시 후 다시 시도해주세요. 결제는 안전하게 보관됩니다. "
                    + "(payment gateway unreachable; retry later — nothing is lost or recorded twice)")
        }
    }

    /// A payment already on record: answered once to its buyer if it was completed in the background, else 409.
    private func answerRecorded(_ record: PaymentRecord, me: String, logger: Logger) async throws -> PaymentRecord {
        if record.buyerId == me, !record.acknowledged,
            try await deps.store.acknowledge(impUid: record.impUid, buyerId: me, logger: logger)
        {
            return record
        }
        throw APIError.conflict("이미 검증 처리된 결제입니다. (payment already validated)")
    }
}
