// Webhook delivery: iamport v1's `{"imp_uid","merchant_uid","status"}` POSTed to the merchant's URL.

extension PortOneLedger {
    /// POSTs the webhook for a payment and returns the receiver's HTTP status.
    ///
    /// - Parameters:
    ///   - url: where to send it; nil = `defaultWebhookURL`.
    ///   - status: the `status` to send; nil = the payment's current status (pass another to forge one).
    ///   - timeout: give up after this long.
    /// - Throws: `PortOneWebhookError`. Every attempt that reached the network is recorded in `webhookDeliveries()`.
    @discardableResult
    package func deliverWebhook(
        impUid: String,
        to url: String? = nil,
        status: String? = nil,
        timeout: Duration = .seconds(30)
    ) async throws(PortOneWebhookError) -> Int {
        guard let payment = payments[impUid] else { throw .unknownPayment(impUid: impUid) }
        guard let target = url ?? defaultWebhookURL else { throw .noWebhookURL }
        let payload = PortOneWebhookPayload(
            impUid: payment.impUid,
            merchantUid: payment.merchantUid,
            status: status ?? payment.status.rawValue
        )
        let result = await WebhookSender.post(payload, to: target, timeout: timeout)
        var delivery = PortOneWebhookDelivery(
            impUid: payload.impUid,
            merchantUid: payload.merchantUid,
            status: payload.status,
            url: target,
            httpStatus: nil,
            error: nil,
            at: now
        )
        switch result {
        case .success(let httpStatus): delivery.httpStatus = httpStatus
        case .failure(let error): delivery.error = error.description
        }
        deliveries.append(delivery)
        return try result.get()
    }

    /// Every webhook delivery attempted, oldest first.
    package func webhookDeliveries() -> [PortOneWebhookDelivery] {
        deliveries
    }
}
