// Request bodies of the sandbox API (`/__sandbox/…`): snake_case JSON (form-urlencoded also accepted).

struct SandboxKeyRequest: Decodable {
    var impKey: String
    var impSecret: String
    var tokenTTL: Int?
    enum CodingKeys: String, CodingKey {
        case impKey = "imp_key"
        case impSecret = "imp_secret"
        case tokenTTL = "token_ttl"
    }
}

struct SandboxPaymentRequest: Decodable {
    var merchantUid: String
    var amount: Int
    var impUid: String?
    var status: PortOnePaymentStatus?
    var name: String?
    var buyerEmail: String?
    var buyerName: String?
    /// A string is stored as is; an object or array is stored as its JSON text.
    var customData: JSONValue?
    /// Deliver the webhook right after creating (to `webhook_url`, else the default URL).
    var webhook: Bool?
    var webhookURL: String?

    enum CodingKeys: String, CodingKey {
        case merchantUid = "merchant_uid"
        case amount
        case impUid = "imp_uid"
        case status, name
        case buyerEmail = "buyer_email"
        case buyerName = "buyer_name"
        case customData = "custom_data"
        case webhook
        case webhookURL = "webhook_url"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        merchantUid = try c.decode(String.self, forKey: .merchantUid)
        guard let amount = try c.decodeLenientInt(forKey: .amount) else {
            throw DecodingError.keyNotFound(
                CodingKeys.amount, .init(codingPath: [], debugDescription: "amount is required"))
        }
        self.amount = amount
        impUid = try c.decodeIfPresent(String.self, forKey: .impUid)
        status = try c.decodeIfPresent(PortOnePaymentStatus.self, forKey: .status)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        buyerEmail = try c.decodeIfPresent(String.self, forKey: .buyerEmail)
        buyerName = try c.decodeIfPresent(String.self, forKey: .buyerName)
        customData = try c.decodeIfPresent(JSONValue.self, forKey: .customData)
        webhook = try c.decodeIfPresent(Bool.self, forKey: .webhook)
        webhookURL = try c.decodeIfPresent(String.self, forKey: .webhookURL)
    }
}

struct SandboxWebhookRequest: Decodable {
    var url: String?
    var status: String?
    /// Give up after this long (default 5000).
    var timeoutMs: Int?
    enum CodingKeys: String, CodingKey {
        case url, status
        case timeoutMs = "timeout_ms"
    }
}

struct SandboxFaultRequest: Decodable {
    var target: PortOneFaultTarget
    var impUid: String?
    var impKey: String?
    var kind: String
    var delayMs: Int?
    var status: Int?
    var times: Int?

    enum CodingKeys: String, CodingKey {
        case target
        case impUid = "imp_uid"
        case impKey = "imp_key"
        case kind
        case delayMs = "delay_ms"
        case status, times
    }

    /// The fault, or a message saying what is wrong with the request.
    func fault() -> Result<PortOneFault, SandboxRequestError> {
        let kind: PortOneFaultKind
        switch self.kind {
        case "slow":
            guard let delayMs, delayMs >= 0 else { return .failure(.init("slow needs delay_ms >= 0")) }
            kind = .slow(delayMilliseconds: delayMs)
        case "error":
            let status = self.status ?? 500
            guard (100...599).contains(status) else { return .failure(.init("status must be 100…599")) }
            kind = .error(status: status)
        case "drop":
            kind = .drop(afterMilliseconds: max(0, delayMs ?? 0))
        default:
            return .failure(.init("kind must be slow, error or drop"))
        }
        if let times, times < 1 { return .failure(.init("times must be >= 1 (omit it for 'until cleared')")) }
        return .success(PortOneFault(target: target, impUid: impUid, impKey: impKey, kind: kind, times: times))
    }
}

struct SandboxRequestError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
