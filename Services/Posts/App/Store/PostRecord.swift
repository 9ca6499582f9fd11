import Foundation
import SNSPlatform

/// A post's own columns, as the write side reads and writes them.
struct PostRecord: Sendable {
    var postId: String
    var userId: String
    var productId: String?
    var title: String?
    var content: String?
    var content1: String?
    var content2: String?
    var content3: String?
    var content4: String?
    var content5: String?
    var price: Int?
    /// G2 (decision 0021): the app it was written in, `value6…value10`, and its place.
    var appId: String? = nil
    var value6: String? = nil
    var value7: String? = nil
    var value8: String? = nil
    var value9: String? = nil
    var value10: String? = nil
    var latitude: Double? = nil
    var longitude: Double? = nil
    var files: [String]
    var hashTags: [String]
    var createdAt: Date
    var updatedAt: Date

    /// Applies an update body: absent keys keep the current value, `null` clears, a value replaces.
    /// (`product_id` cannot be cleared: the handler rejects `null` for it.)
    mutating func apply(_ body: PostBody) {
        Self.update(&title, body.title)
        Self.update(&content, body.content)
        if case .absent = body.content {} else { hashTags = Hashtags.extract(from: content) }
        Self.update(&content1, body.content1)
        Self.update(&content2, body.content2)
        Self.update(&content3, body.content3)
        Self.update(&content4, body.content4)
        Self.update(&content5, body.content5)
        Self.update(&productId, body.productId)
        Self.update(&price, body.price)
        Self.update(&value6, body.value6)
        Self.update(&value7, body.value7)
        Self.update(&value8, body.value8)
        Self.update(&value9, body.value9)
        Self.update(&value10, body.value10)
        Self.update(&latitude, body.latitude)
        Self.update(&longitude, body.longitude)
        switch body.files {
        case .absent: break
        case .null: files = []
        case .value(let value): files = value
        }
    }

    private static func update<Value>(_ current: inout Value?, _ field: Field<Value>) {
        switch field {
        case .absent: break
        case .null: current = nil
        case .value(let value): current = value
        }
    }

    var snapshot: PostSnapshot {
        PostSnapshot(
            postId: postId, userId: userId, productId: productId, title: title, price: price, files: files,
            hashTags: hashTags, createdAt: createdAt, updatedAt: updatedAt)
    }
}
