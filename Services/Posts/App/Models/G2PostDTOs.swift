import Foundation
import Hummingbird
import SNSPlatform

// The G2 post itself is kept ready by PostgreSQL (`doc_g2`, `MaterialisedPosts.g2Migration`): the union of what
// mychelin and WeeMo decode (decision 0021), and the comment list is read from it (`G2CommentsPage`). Here: the
// comment the comment routes answer a write with.

/// G2 user entry (creator): `{user_id, nick, profileImage?}`, the image path with its leading slash.
struct G2User: Encodable, Sendable {
    var userId: String
    var nick: String
    var profileImage: String?
    enum CodingKeys: String, CodingKey { case userId = "user_id", nick, profileImage }

    init(_ user: CreatorJSON) {
        userId = user.userId
        nick = user.nick
        profileImage = G2Path.encode(user.profileImage)
    }
}

/// G2 comment: `{comment_id, content, createdAt, creator}` (WeeMo's optional `replies` is never sent).
struct G2Comment: Encodable, Sendable {
    var commentId: String
    var content: String
    var createdAt: String
    var creator: G2User
    enum CodingKeys: String, CodingKey { case commentId = "comment_id", content, createdAt, creator }

    init(_ comment: CommentJSON) {
        commentId = comment.commentId
        content = comment.content
        createdAt = APIDateFormat.string(from: comment.createdAt)
        creator = G2User(comment.creator)
    }
}
