import PostgresNIO
import SNSPlatform

/// What the posts handlers share.
struct PostsDependencies: Sendable {
    let store: PostStore
    let queries: PostQueries
    let rules: PostRules
    let outbox: Outbox
    let pools: LoopLocalPools
    /// The pool of the request's event loop.
    var postgres: PostgresClient { pools.current }

    static let postGone = APIError.gone("게시글을 찾을 수 없습니다. (post not found)")
    static let commentGone = APIError.gone("댓글을 찾을 수 없습니다. (comment not found)")
}
