import Foundation

/// A payment as PortOne (iamport REST API v1) reports it from `GET /payments/{imp_uid}`. Only what verification
/// needs is decoded; `amount` may arrive as `1000` or `1000.0`, `custom_data` as a JSON string.
struct PortOnePaymentResponse: Decodable, Sendable, Equatable {
    var impUid: String
    var merchantUid: String
    var amount: Int
    var cancelAmount: Int
    var currency: String
    var status: String
    var name: String?
    var paidAt: Date?
    var customData: String?

    var isPaid: Bool { status == "paid" }

    init(
        impUid: String, merchantUid: String, amount: Int, cancelAmount: Int = 0, currency: String = "KRW",
        status: String,
        name: String? = nil, paidAt: Date? = nil, customData: String? = nil
    ) {
        self.impUid = impUid
        self.merchantUid = merchantUid
        self.amount = amount
        self.cancelAmount = cancelAmount
        self.currency = currency
        self.status = status
        self.name = name
        self.paidAt = paidAt
        self.customData = customData
    }

    enum CodingKeys: String, CodingKey {
        case impUid = "imp_uid", merchantUid = "merchant_uid", amount, cancelAmount = "cancel_amount", currency, status,
            name
        case paidAt = "paid_at", customData = "custom_data"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        impUid = try c.decode(String.self, forKey: .impUid)
        merchantUid = try c.decode(String.self, forKey: .merchantUid)
        guard !merchantUid.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .merchantUid, in: c, debugDescription: "empty merchant_uid")
        }
        amount = try Self.wholeNumber(c, .amount) ?? 0
        cancelAmount = try Self.wholeNumber(c, .cancelAmount) ?? 0
        currency = try c.decodeIfPresent(String.self, forKey: .currency) ?? "KRW"
        status = try c.decode(String.self, forKey: .status)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        let paidSeconds = try Self.wholeNumber(c, .paidAt) ?? 0
        paidAt = paidSeconds > 0 ? Date(timeIntervalSince1970: TimeInterval(paidSeconds)) : nil
        customData = (try? c.decodeIfPresent(String.self, forKey: .customData)) ?? nil
    }

    /// A number that must be whole (KRW has no minor unit); a fractional amount is malformed.
    private static func wholeNumber(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int? {
        guard let value = try c.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard value.rounded() == value, abs(value) < 1e15 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not a whole number: \(value)")
        }
        return Int(value)
    }

    /// The buyer and post an app put into the payment's `custom_data` (`{"post_id": …, "buyer_id": …}`), which lets
    /// a webhook complete a purchase nobody validated (decision 0007). Client-controlled: only used for attribution;
    /// the amount is still checked against the post's price.
    var attribution: (buyerId: String, postId: String)? {
        struct Attribution: Decodable {
            var postId: String?
            var buyerId: String?
            enum CodingKeys: String, CodingKey { case postId = "post_id", buyerId = "buyer_id" }
        }
        guard let customData, let parsed = try? JSONDecoder().decode(Attribution.self, from: Data(customData.utf8)),
            let postId = parsed.postId, let buyerId = parsed.buyerId,
            !postId.isEmpty, !buyerId.isEmpty, postId.count <= 64, buyerId.count <= 64
        else { return nil }
        return (buyerId, postId)
    }
}

/// The iamport v1 envelope around every answer: `code` 0 is success.
struct PortOneEnvelope<Response: Decodable & Sendable>: Decodable, Sendable {
    var code: Int
    var message: String?
    var response: Response?
}

/// `POST /users/getToken` → `response`.
struct PortOneTokenResponse: Decodable, Sendable {
    var accessToken: String
    var now: Int
    var expiredAt: Int

    enum CodingKeys: String, CodingKey { case accessToken = "access_token", now, expiredAt = "expired_at" }
}

/// Why a call to PortOne did not give an answer we can act on.
enum PortOneError: Error, CustomStringConvertible {
    /// Transport failure, timeout, 5xx or 429 on every attempt: worth retrying later.
    case unreachable(String)
    /// Our credentials were refused (configuration problem; logged loudly, treated like an outage for the app).
    case credentialsRejected(String)
    /// An answer we did not expect (4xx other than 401/404, malformed body).
    case unexpected(String)

    var description: String {
        switch self {
        case .unreachable(let reason): "PortOne unreachable: \(reason)"
        case .credentialsRejected(let reason): "PortOne refused our imp_key/imp_secret: \(reason)"
        case .unexpected(let reason): "PortOne answered unexpectedly: \(reason)"
        }
    }
}

/// The outcome of `POST /payments/cancel`, after confirming with a lookup when PortOne answered `code != 0`.
enum PortOneCancelResult: Sendable, Equatable {
    case cancelled
    case alreadyCancelled
    case refused(String)
}
