import Foundation

/// What other services need to know about a post: published whole on create and update, so a consumer
/// overwrites its read model (market keeps the price, media the referenced files, social the counts).
public struct PostSnapshot: Codable, Sendable, Equatable {
    public var postId: String
    public var userId: String
    public var productId: String?
    public var title: String?
    public var price: Int?
    public var files: [String]
    public var hashTags: [String]
    public var createdAt: Date
    public var updatedAt: Date

    public init(
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
public struct PostCreated: EventPayload, Equatable {
    public static let eventType = EventType.postCreated
    public var post: PostSnapshot
    public init(post: PostSnapshot) { self.post = post }
}

/// `post-updated`: the post as it is after the change.
public struct PostUpdated: EventPayload, Equatable {
    public static let eventType = EventType.postUpdated
    public var post: PostSnapshot
    public init(post: PostSnapshot) { self.post = post }
}

/// `post-deleted`: the files it referenced are released (media may collect them).
public struct PostDeleted: EventPayload, Equatable {
    public static let eventType = EventType.postDeleted
    public var postId: String
    public var userId: String
    public var productId: String?
    public var files: [String]
    public var deletedAt: Date

    public init(postId: String, userId: String, productId: String?, files: [String], deletedAt: Date) {
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
public struct CommentCreated: EventPayload, Equatable {
    public static let eventType = EventType.commentCreated
    public var commentId: String
    public var postId: String
    public var userId: String
    public var postUserId: String
    public var productId: String?
    public var createdAt: Date

    public init(
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
public struct CommentDeleted: EventPayload, Equatable {
    public static let eventType = EventType.commentDeleted
    public var commentId: String
    public var postId: String
    public var userId: String
    public var productId: String?
    public var deletedAt: Date

    public init(commentId: String, postId: String, userId: String, productId: String?, deletedAt: Date) {
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
public enum LikeKind: String, Codable, Sendable, CaseIterable {
    case like
    case like2
}

/// `post-liked` / `post-unliked` share this shape; only state changes are published (repeating a like is a no-op).
public struct LikeChange: Codable, Sendable, Equatable {
    public var postId: String
    public var userId: String
    public var postUserId: String
    public var productId: String?
    public var kind: LikeKind
    public var at: Date

    public init(postId: String, userId: String, postUserId: String, productId: String?, kind: LikeKind, at: Date) {
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
public struct PostLiked: EventPayload, Equatable {
    public static let eventType = EventType.postLiked
    public var like: LikeChange
    public init(like: LikeChange) { self.like = like }
}

/// `post-unliked`.
public struct PostUnliked: EventPayload, Equatable {
    public static let eventType = EventType.postUnliked
    public var like: LikeChange
    public init(like: LikeChange) { self.like = like }
}
