import Foundation

/// `media-stored`, published by the media service for every stored file (keyed by the owner's user id).
package struct MediaStored: EventPayload, Equatable {
    package static let eventType = EventType.mediaStored
    package var path: String
    package var userId: String
    package var contentType: String
    package var size: Int
    package var storedAt: Date

    package init(path: String, userId: String, contentType: String, size: Int, storedAt: Date) {
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
