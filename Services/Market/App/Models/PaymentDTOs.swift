import Foundation
import SNSPlatform

/// `POST /v1/payments/validation` body: `{imp_uid, post_id}` (Aug-2024+ apps) or `{imp_uid, post_id,
/// productName, price}` (April-2024 apps). `price` is the amount to verify only when the post has no `price` of
/// its own (decision 0013); it is read leniently (a number, or digits in a string), and anything else (or a
/// price that is not positive) counts as absent. `productName` is a label, used only when the post has no title.
struct ValidationRequest: Decodable, Sendable {
    var impUid: String
    var postId: String
    var productName: String?
    var price: Int?

    enum CodingKeys: String, CodingKey { case impUid = "imp_uid", postId = "post_id", productName, price }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        impUid = try c.decode(String.self, forKey: .impUid)
        postId = try c.decode(String.self, forKey: .postId)
        productName = try? c.decodeIfPresent(String.self, forKey: .productName)
        price = Self.amount(in: c).flatMap { $0 > 0 ? $0 : nil }
    }

    private static func amount(in c: KeyedDecodingContainer<CodingKeys>) -> Int? {
        if let value = try? c.decodeIfPresent(Int.self, forKey: .price) { return value }
        if let value = try? c.decodeIfPresent(Double.self, forKey: .price), value.rounded() == value, abs(value) < 1e12
        {
            return Int(value)
        }
        if let text = try? c.decodeIfPresent(String.self, forKey: .price) {
            return Int(text.trimmingCharacters(in: .whitespaces))
        }
        return nil
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
        // April-2024 apps decode productName as a required String: never omitted.
        productName = record.productName ?? ""
        price = record.price
        paidAt = record.paidAt
    }

    enum CodingKeys: String, CodingKey {
        case paymentId = "payment_id", buyerId = "buyer_id", postId = "post_id", merchantUid = "merchant_uid",
            productName, price, paidAt
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
            && value.utf8.allSatisfy {
                (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 95 || $0 == 45
            }
    }

    static func validPostId(_ value: String) -> Bool {
        (1...64).contains(value.utf8.count) && !value.contains(where: { $0.isWhitespace || $0.isNewline })
    }
}
