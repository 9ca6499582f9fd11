import Foundation

/// `media-stored`, published by the media service for every stored file (keyed by the owner's user id).
public struct MediaStored: EventPayload, Equatable {
    public static let eventType = EventType.mediaStored
    public var path: String
    public var userId: String
    public var contentType: String
    public var size: Int
    public var storedAt: Date

    public init(path: String, userId: String, contentType: String, size: Int, storedAt: Date) {
        self.path = path
        self.userId = userId
        self.contentType = contentType
        self.size = size
        self.storedAt = storedAt
    }

    enum CodingKeys: String, CodingKey {
        case path, userId = "user_id", contentType = "content_type", size, storedAt = "stored_at"
    }
}
