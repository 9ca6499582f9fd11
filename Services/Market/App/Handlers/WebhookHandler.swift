import Foundation
import Hummingbird
import Logging
import SNSPlatform

/// `POST /v1/payments/webhook`: PortOne's (iamport v1) payment notification `{imp_uid, merchant_uid, status}`,
/// ours beyond LSLP. It carries no `SesacKey` or token and is never trusted: only `imp_uid` is read, PortOne is
/// asked about the payment, and the usual settlement runs, so a forged or repeated notification changes nothing.
/// It completes a purchase whose app call never finished, when the buyer and post are known: from that app
/// call's claim, or from the payment's `custom_data` (decision 0007). Without either it records nothing; the
/// app's validation does it when it arrives.
///
/// Answers 200 once the notification is handled (recorded, refused, or nothing to do), 400 for a body without a
/// usable `imp_uid`, and 503 when PortOne cannot be reached (the claim stays pending for the re-verifier).
struct WebhookHandler: Sendable {
    let deps: MarketDependencies

    static let path = "/v1/payments/webhook"

    func receive(_ request: Request, context: APIRequestContext) async throws -> Response {
        let notification = try await Self.decode(request, context: context)
        let impUid = notification.impUid.trimmingCharacters(in: .whitespaces)
        guard PaymentInput.validImpUid(impUid) else {
            throw APIError.badRequest("유효하지 않은 imp_uid 입니다. (invalid imp_uid)")
        }
        var logger = context.logger
        logger[metadataKey: "imp_uid"] = .string(impUid)
        logger.info("payment webhook received", metadata: ["claimed_status": "\(notification.status ?? "-")"])

        if try await deps.store.payment(impUid: impUid, logger: logger) != nil {
            return try message("already recorded")
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
            guard let payment else { return try message("unknown payment; ignored") }
            guard let attribution = payment.attribution else {
                logger.info(
                    "webhook: no buyer known yet for this payment; the app's validation will record it",
                    metadata: ["status": "\(payment.status)", "amount": "\(payment.amount)"])
                return try message("no buyer known yet; waiting for the app's validation")
            }
            prefetched = payment
            claim = try await deps.store.claim(
                Claim(
                    impUid: impUid, buyerId: attribution.buyerId, postId: attribution.postId, productName: payment.name,
                    source: .customData),
                firstRetry: deps.reverifyDelay, logger: logger)
        }
        guard let claim else { return try message("nothing to do") }
        // Settled before (refused and refunded, or recorded): a repeated or forged notification changes nothing.
        guard claim.state == .pending || claim.state == .expired else { return try message("already settled") }

        switch try await deps.verification.settle(
            claim, recordedBy: .webhook, prefetched: prefetched, trace: context.trace, logger: logger)
        {
        case .recorded, .alreadyRecorded:
            return try message("recorded")
        case .rejected:
            return try message("refused")
        case .notYetPaid(let status):
            return try message("not paid yet (\(status)); waiting")
        case .productUnknown:
            try await deps.store.postponeClaim(
                impUid: impUid, delay: deps.reverifyDelay, reason: "post not in the read model yet", logger: logger)
            return try message("post not known yet; will retry")
        case .unreachable:
            try await deps.store.postponeClaim(
                impUid: impUid, delay: deps.reverifyDelay, reason: "PortOne unreachable during a webhook",
                logger: logger)
            throw APIError.unavailable("PortOne unreachable; the payment will be verified again later")
        }
    }

    private func message(_ text: String) throws -> Response { try .json(MessageBody(message: text)) }

    /// JSON (what iamport sends) or `application/x-www-form-urlencoded`.
    static func decode(_ request: Request, context: APIRequestContext) async throws -> WebhookNotification {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            return try await request.decodeJSON(as: WebhookNotification.self, context: context)
        }
        let buffer = try await request.body.collect(upTo: 16 * 1024)
        var components = URLComponents()
        components.percentEncodedQuery = String(buffer: buffer).replacingOccurrences(of: "+", with: "%20")
        let items = components.queryItems ?? []
        func value(_ name: String) -> String? { items.first(where: { $0.name == name })?.value }
        guard let impUid = value("imp_uid") else { throw APIError.badRequest("필수값을 채워주세요: imp_uid (missing imp_uid)") }
        return WebhookNotification(impUid: impUid, merchantUid: value("merchant_uid"), status: value("status"))
    }
}
