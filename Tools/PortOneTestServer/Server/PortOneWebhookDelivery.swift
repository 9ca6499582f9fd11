// A record of one webhook POST, and the ways a delivery can fail.

/// One webhook delivery attempt, kept by the ledger for assertions.
package struct PortOneWebhookDelivery: Sendable, Equatable {
    package var impUid: String
    package var merchantUid: String
    /// The `status` sent in the body.
    package var status: String
    package var url: String
    /// The receiver's HTTP status; nil when the request failed.
    package var httpStatus: Int?
    /// Why the request failed (transport error, timeout); nil when an answer came.
    package var error: String?
    /// Unix seconds (ledger clock).
    package var at: Int
}

/// Why `PortOneLedger.deliverWebhook` could not get an answer from the receiver.
package enum PortOneWebhookError: Error, Equatable, CustomStringConvertible {
    case unknownPayment(impUid: String)
    case noWebhookURL
    /// The POST failed: connection refused, timeout, invalid URL …
    case transport(url: String, description: String)

    package var description: String {
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
