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
    var files: [String]
    var hashTags: [String]
    var createdAt: Date
    var updatedAt: Date

    /// Applies an update body: present keys replace, absent keys keep the current value.
    mutating func apply(_ body: PostBody) {
        if let value = body.title { title = value }
        if let value = body.content { content = value; hashTags = Hashtags.extract(from: value) }
        if let value = body.content1 { content1 = value }
        if let value = body.content2 { content2 = value }
        if let value = body.content3 { content3 = value }
        if let value = body.content4 { content4 = value }
        if let value = body.content5 { content5 = value }
        if let value = body.productId { productId = value }
        if let value = body.files { files = value }
        if let value = body.price { price = value }
    }

    var snapshot: PostSnapshot {
        PostSnapshot(postId: postId, userId: userId, productId: productId, title: title, price: price, files: files,
                     hashTags: hashTags, createdAt: createdAt, updatedAt: updatedAt)
    }
}
