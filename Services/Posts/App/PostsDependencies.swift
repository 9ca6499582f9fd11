import PostgresNIO
import SNSPlatform

/// What the posts handlers share.
struct PostsDependencies: Sendable {
    let store: PostStore
    let queries: PostQueries
    let rules: PostRules
    let outbox: Outbox
    let postgres: PostgresClient

    static let postGone = APIError.gone("게시글을 찾을 수 없습니다. (post not found)")
    static let commentGone = APIError.gone("댓글을 찾을 수 없습니다. (comment not found)")
}
