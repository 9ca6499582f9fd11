import Foundation
import Logging
import SNSPlatform

/// PortOne's webhook (`POST /v1/payments/webhook`): its (iamport v1) payment notification `{imp_uid, merchant_uid, status}`,
/// ours beyond LSLP. It carries no `SesacKey` or token and is never trusted: only `imp_uid` is read, PortOne is
/// asked about the payment, and the usual settlement runs, so a forged or repeated notification changes nothing.
/// It completes a purchase whose app call never finished, when the buyer and post are known: from that app
/// call's claim, or from the payment's `custom_data` (decision 0007). Without either it records nothing; the
/// app's validation does it when it arrives.
///
/// Returns what was done (the answer's message); 400 for a notification without a usable `imp_uid`, and 503 when
/// PortOne cannot be reached (the claim stays pending for the re-verifier).
struct PaymentNotifications: Sendable {
    let deps: MarketDependencies

    func receive(_ notification: WebhookNotification, trace: TraceContext, logger: Logger) async throws -> String {
        let impUid = notification.impUid.trimmingCharacters(in: .whitespaces)
        guard PaymentInput.validImpUid(impUid) else {
            throw APIError.badRequest("유효하지 않은 imp_uid 입니다. (invalid imp_uid)")
        }
        var logger = logger
        logger[metadataKey: "imp_uid"] = .string(impUid)
        logger.info("payment webhook received", metadata: ["claimed_status": "\(notification.status ?? "-")"])

        if try await deps.store.payment(impUid: impUid, logger: logger) != nil {
            return "already recorded"
        }
        var prefetched: PortOnePaymentResponse?
        var claim = try await deps.store.existingClaim(impUid: impUid, logger: logger)
        if claim == nil {
            // Nobody asked for this payment yet: the payment itself may say whose and for what (custom_data).
            let payment: PortOnePaymentResponse?
            do {
                payment = try await deps.verification.portOne.payment(impUid, logger: logger)
            } catch let error as PortOneError {
                logger.error("webhook: PortOne unreachable", metadata: ["error": "\(error)"])
                throw APIError.unavailable("PortOne unreachable; send the notification again later")
            }
            guard let payment else { return "unknown payment; ignored" }
            guard let attribution = payment.attribution else {
                logger.info(
                    "webhook: no buyer known yet for this payment; the app's validation will record it",
                    metadata: ["status": "\(payment.status)", "amount": "\(payment.amount)"])
                return "no buyer known yet; waiting for the app's validation"
            }
            prefetched = payment
            claim = try await deps.store.claim(
                Claim(
                    impUid: impUid, buyerId: attribution.buyerId, postId: attribution.postId, productName: payment.name,
                    source: .customData),
                firstRetry: deps.reverifyDelay, logger: logger)
        }
        guard let claim else { return "nothing to do" }
        // Settled before (refused and refunded, or recorded): a repeated or forged notification changes nothing.
        guard claim.state == .pending || claim.state == .expired else { return "already settled" }

        switch try await deps.verification.settle(
            claim, recordedBy: .webhook, prefetched: prefetched, trace: trace, logger: logger)
        {
        case .recorded, .alreadyRecorded:
            return "recorded"
        case .rejected:
            return "refused"
        case .notYetPaid(let status):
            return "not paid yet (\(status)); waiting"
        case .productUnknown:
            try await deps.store.postponeClaim(
                impUid: impUid, delay: deps.reverifyDelay, reason: "post not in the read model yet", logger: logger)
            return "post not known yet; will retry"
        case .unreachable:
            try await deps.store.postponeClaim(
                impUid: impUid, delay: deps.reverifyDelay, reason: "PortOne unreachable during a webhook",
                logger: logger)
            throw APIError.unavailable("PortOne unreachable; the payment will be verified again later")
        }
    }
}
