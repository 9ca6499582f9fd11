import Foundation
import SNSPlatform

/// `POST /v1/payments/validation` body (contract §2.6 #27, §9.2): `{imp_uid, post_id}`, and from Apr-2024 clients
/// also `productName` and `price`. The client's price is never used (the post's price counts, §10.10), so it is
/// not even decoded; `productName` is a label, used only when the post has no title.
struct ValidationRequest: Decodable, Sendable {
    var impUid: String
    var postId: String
    var productName: String?

    enum CodingKeys: String, CodingKey { case impUid = "imp_uid", postId = "post_id", productName }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        impUid = try c.decode(String.self, forKey: .impUid)
        postId = try c.decode(String.self, forKey: .postId)
        productName = try? c.decodeIfPresent(String.self, forKey: .productName)
    }
}

/// A payment on the wire (§2.6 #27 response, #28 list entries).
struct PaymentJSON: Encodable, Sendable {
    var paymentId: String
    var buyerId: String
    var postId: String
    var merchantUid: String
    var productName: String?
    var price: Int
    var paidAt: Date

    init(_ record: PaymentRecord) {
        paymentId = record.paymentId
        buyerId = record.buyerId
        postId = record.postId
        merchantUid = record.merchantUid
        productName = record.productName
        price = record.price
        paidAt = record.paidAt
    }

    enum CodingKeys: String, CodingKey {
        case paymentId = "payment_id", buyerId = "buyer_id", postId = "post_id", merchantUid = "merchant_uid", productName, price, paidAt
    }
}

struct PaymentListJSON: Encodable, Sendable {
    var data: [PaymentJSON]
}

/// iamport v1 webhook body: `{imp_uid, merchant_uid, status}` (JSON, or form-encoded). Only `imp_uid` is used;
/// the rest is never trusted (PortOne is asked).
struct WebhookNotification: Decodable, Sendable {
    var impUid: String
    var merchantUid: String?
    var status: String?

    enum CodingKeys: String, CodingKey { case impUid = "imp_uid", merchantUid = "merchant_uid", status }
}

enum PaymentInput {
    /// imp_uid goes into PortOne's URL path, so only the characters real ones use are accepted.
    static func validImpUid(_ value: String) -> Bool {
        (1...64).contains(value.utf8.count)
            && value.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 95 || $0 == 45 }
    }

    static func validPostId(_ value: String) -> Bool {
        (1...64).contains(value.utf8.count) && !value.contains(where: { $0.isWhitespace || $0.isNewline })
    }
}
