import Foundation

/// What other services need to know about a post: published whole on create and update, so a consumer
/// overwrites its read model (market keeps the price, media the referenced files, social the counts).
package struct PostSnapshot: Codable, Sendable, Equatable {
    package var postId: String
    package var userId: String
    package var productId: String?
    package var title: String?
    package var price: Int?
    package var files: [String]
    package var hashTags: [String]
    package var createdAt: Date
    package var updatedAt: Date

    package init(
        postId: String, userId: String, productId: String?, title: String?, price: Int?, files: [String],
        hashTags: [String], createdAt: Date, updatedAt: Date
    ) {
        self.postId = postId
        self.userId = userId
        self.productId = productId
        self.title = title
        self.price = price
        self.files = files
        self.hashTags = hashTags
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case postId = "post_id", userId = "user_id", productId = "product_id", title, price, files
        case hashTags = "hash_tags", createdAt = "created_at", updatedAt = "updated_at"
    }
}

/// `post-created`.
package struct PostCreated: EventPayload, Equatable {
    package static let eventType = EventType.postCreated
    package var post: PostSnapshot
    package init(post: PostSnapshot) { self.post = post }
}

/// `post-updated`: the post as it is after the change.
package struct PostUpdated: EventPayload, Equatable {
    package static let eventType = EventType.postUpdated
    package var post: PostSnapshot
    package init(post: PostSnapshot) { self.post = post }
}

/// `post-deleted`: the files it referenced are released (media may collect them).
package struct PostDeleted: EventPayload, Equatable {
    package static let eventType = EventType.postDeleted
    package var postId: String
    package var userId: String
    package var productId: String?
    package var files: [String]
    package var deletedAt: Date

    package init(postId: String, userId: String, productId: String?, files: [String], deletedAt: Date) {
        self.postId = postId
        self.userId = userId
        self.productId = productId
        self.files = files
        self.deletedAt = deletedAt
    }

    enum CodingKeys: String, CodingKey {
        case postId = "post_id", userId = "user_id", productId = "product_id", files, deletedAt = "deleted_at"
    }
}

/// `comment-created` (keyed by the post id, so it stays ordered with the post's deletion).
package struct CommentCreated: EventPayload, Equatable {
    package static let eventType = EventType.commentCreated
    package var commentId: String
    package var postId: String
    package var userId: String
    package var postUserId: String
    package var productId: String?
    package var createdAt: Date

    package init(
        commentId: String, postId: String, userId: String, postUserId: String, productId: String?, createdAt: Date
    ) {
        self.commentId = commentId
        self.postId = postId
        self.userId = userId
        self.postUserId = postUserId
        self.productId = productId
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case commentId = "comment_id", postId = "post_id", userId = "user_id", postUserId = "post_user_id"
        case productId = "product_id", createdAt = "created_at"
    }
}

/// `comment-deleted`.
package struct CommentDeleted: EventPayload, Equatable {
    package static let eventType = EventType.commentDeleted
    package var commentId: String
    package var postId: String
    package var userId: String
    package var productId: String?
    package var deletedAt: Date

    package init(commentId: String, postId: String, userId: String, productId: String?, deletedAt: Date) {
        self.commentId = commentId
        self.postId = postId
        self.userId = userId
        self.productId = productId
        self.deletedAt = deletedAt
    }

    enum CodingKeys: String, CodingKey {
        case commentId = "comment_id", postId = "post_id", userId = "user_id", productId = "product_id", deletedAt =
            "deleted_at"
    }
}

/// Which of the two "likes" (API conventions §2.3 #18/#19): `like` fills `likes`, `like2` fills `likes2`
/// (scrap, bookmark, cart …).
package enum LikeKind: String, Codable, Sendable, CaseIterable {
    case like
    case like2
}

/// `post-liked` / `post-unliked` share this shape; only state changes are published (repeating a like is a no-op).
package struct LikeChange: Codable, Sendable, Equatable {
    package var postId: String
    package var userId: String
    package var postUserId: String
    package var productId: String?
    package var kind: LikeKind
    package var at: Date

    package init(postId: String, userId: String, postUserId: String, productId: String?, kind: LikeKind, at: Date) {
        self.postId = postId
        self.userId = userId
        self.postUserId = postUserId
        self.productId = productId
        self.kind = kind
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case postId = "post_id", userId = "user_id", postUserId = "post_user_id", productId = "product_id", kind, at
    }
}

/// `post-liked`.
package struct PostLiked: EventPayload, Equatable {
    package static let eventType = EventType.postLiked
    package var like: LikeChange
    package init(like: LikeChange) { self.like = like }
}

/// `post-unliked`.
package struct PostUnliked: EventPayload, Equatable {
    package static let eventType = EventType.postUnliked
    package var like: LikeChange
    package init(like: LikeChange) { self.like = like }
}
