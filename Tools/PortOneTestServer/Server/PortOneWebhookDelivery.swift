// A record of one webhook POST, and the ways a delivery can fail.

/// One webhook delivery attempt, kept by the ledger for assertions.
public struct PortOneWebhookDelivery: Sendable, Equatable {
    public var impUid: String
    public var merchantUid: String
    /// The `status` sent in the body.
    public var status: String
    public var url: String
    /// The receiver's HTTP status; nil when the request failed.
    public var httpStatus: Int?
    /// Why the request failed (transport error, timeout); nil when an answer came.
    public var error: String?
    /// Unix seconds (ledger clock).
    public var at: Int
}

/// Why `PortOneLedger.deliverWebhook` could not get an answer from the receiver.
public enum PortOneWebhookError: Error, Equatable, CustomStringConvertible {
    case unknownPayment(impUid: String)
    case noWebhookURL
    /// The POST failed: connection refused, timeout, invalid URL …
    case transport(url: String, description: String)

    public var description: String {
        switch self {
        case .unknownPayment(let impUid): "no payment \(impUid)"
        case .noWebhookURL: "no webhook URL given and no default webhook URL configured"
        case .transport(let url, let description): "webhook POST to \(url) failed: \(description)"
        }
    }
}

/// The body iamport v1 posts to the merchant's notification URL.
struct PortOneWebhookPayload: Codable, Sendable {
    var impUid: String
    var merchantUid: String
    var status: String

    enum CodingKeys: String, CodingKey {
        case impUid = "imp_uid"
        case merchantUid = "merchant_uid"
        case status
    }
}
