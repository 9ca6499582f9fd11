// Answers of the sandbox API (`/__sandbox/…`): snake_case JSON, bare objects (no iamport envelope).

struct SandboxError: Encodable, Sendable {
    var error: String
}

/// The outcome of a webhook delivery: `{"delivered_to", "status"}` or `{"delivered_to", "error"}`.
struct SandboxWebhookResult: Encodable, Sendable {
    var deliveredTo: String?
    var status: Int?
    var error: String?
    enum CodingKeys: String, CodingKey {
        case deliveredTo = "delivered_to"
        case status, error
    }
}

/// A payment as the sandbox shows it: the iamport payment object plus `cancels`, counters and, right after a
/// creation with `"webhook": true`, the delivery outcome.
struct SandboxPaymentView: Encodable, Sendable {
    var payment: PortOnePayment
    var cancels: [PortOneCancel]
    var lookups: Int
    var cancelRequests: Int
    var webhook: SandboxWebhookResult?

    struct CancelView: Encodable {
        var amount: Int
        var reason: String?
        var at: Int
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(amount, forKey: .amount)
            try c.encode(reason, forKey: .reason)
            try c.encode(at, forKey: .at)
        }
        enum CodingKeys: String, CodingKey { case amount, reason, at }
    }

    enum CodingKeys: String, CodingKey {
        case cancels, lookups, webhook
        case cancelRequests = "cancel_requests"
    }

    func encode(to encoder: any Encoder) throws {
        try payment.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(cancels.map { CancelView(amount: $0.amount, reason: $0.reason, at: $0.at) }, forKey: .cancels)
        try c.encode(lookups, forKey: .lookups)
        try c.encode(cancelRequests, forKey: .cancelRequests)
        try c.encodeIfPresent(webhook, forKey: .webhook)
    }
}

/// An armed fault as `GET /__sandbox/faults` lists it (the request's shape plus `id` and `remaining`).
struct SandboxFaultView: Encodable, Sendable {
    var armed: PortOneArmedFault

    enum CodingKeys: String, CodingKey {
        case id, target, kind, times, remaining, status
        case impUid = "imp_uid"
        case impKey = "imp_key"
        case delayMs = "delay_ms"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let fault = armed.fault
        try c.encode(armed.id, forKey: .id)
        try c.encode(fault.target, forKey: .target)
        try c.encodeIfPresent(fault.impUid, forKey: .impUid)
        try c.encodeIfPresent(fault.impKey, forKey: .impKey)
        switch fault.kind {
        case .slow(let delay):
            try c.encode("slow", forKey: .kind)
            try c.encode(delay, forKey: .delayMs)
        case .error(let status):
            try c.encode("error", forKey: .kind)
            try c.encode(status, forKey: .status)
        case .drop(let delay):
            try c.encode("drop", forKey: .kind)
            try c.encode(delay, forKey: .delayMs)
        }
        try c.encode(fault.times, forKey: .times)
        try c.encode(armed.remaining, forKey: .remaining)
    }
}

struct SandboxStatsView: Encodable, Sendable {
    var stats: PortOneStatistics

    struct DeliveryView: Encodable {
        var delivery: PortOneWebhookDelivery
        enum CodingKeys: String, CodingKey {
            case impUid = "imp_uid"
            case merchantUid = "merchant_uid"
            case status, url, error, at
            case httpStatus = "http_status"
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(delivery.impUid, forKey: .impUid)
            try c.encode(delivery.merchantUid, forKey: .merchantUid)
            try c.encode(delivery.status, forKey: .status)
            try c.encode(delivery.url, forKey: .url)
            try c.encode(delivery.httpStatus, forKey: .httpStatus)
            try c.encode(delivery.error, forKey: .error)
            try c.encode(delivery.at, forKey: .at)
        }
    }

    enum CodingKeys: String, CodingKey {
        case tokenRequests = "token_requests"
        case lookups
        case cancelRequests = "cancel_requests"
        case webhookDeliveries = "webhook_deliveries"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(stats.tokenRequests, forKey: .tokenRequests)
        try c.encode(stats.lookups, forKey: .lookups)
        try c.encode(stats.cancelRequests, forKey: .cancelRequests)
        try c.encode(stats.webhookDeliveries.map(DeliveryView.init), forKey: .webhookDeliveries)
    }
}
