import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// The write side of `posts.*`: every statement binds its values and runs inside the caller's transaction,
/// together with the outbox row of the event it causes.
struct PostStore: Sendable {
    let pools: LoopLocalPools
    /// The pool of the request's event loop.
    var client: PostgresClient { pools.current }

    /// Whether the user may act here: not withdrawn according to this service's read model (unknown = yes:
    /// their registration event may still be on its way).
    /// It runs on every authenticated request, so it is a named prepared statement (planned once per connection).
    func isActive(userId: String, logger: Logger) async throws -> Bool {
        for try await active in try await client.execute(ActiveUserCheck(userId: userId), logger: logger) {
            return active
        }
        return true
    }

    /// Makes sure the read model has a row for a user who acts before their registration event arrived, and is
    /// the account check of the writes that run it first (their routes check only the token, decision 0022):
    /// 401 if the user withdrew. The row stays share-locked until the caller commits, so a `user-withdrawn` being
    /// applied meanwhile waits for this transaction, and then sees (and hides) what it wrote: a post can never
    /// slip in after its author's withdrawal. One statement when the user is known (the common case), three the
    /// first time.
    func ensureUser(_ userId: String, on connection: PostgresConnection, logger: Logger) async throws {
        var withdrawn = try await lockUser(userId, on: connection, logger: logger)
        if withdrawn == nil {
            try await addUserRow(userId, on: connection, logger: logger)
            withdrawn = try await lockUser(userId, on: connection, logger: logger)
        }
        guard withdrawn != true else { throw Self.withdrawn }
    }

    /// Whether the user's read-model row says withdrawn, share-locked; nil without a row.
    private func lockUser(_ userId: String, on connection: PostgresConnection, logger: Logger) async throws -> Bool? {
        for try await withdrawn in try await connection.execute(LockUser(userId: userId), logger: logger) {
            return withdrawn
        }
        return nil
    }

    static let withdrawn = APIError.unauthorized("탈퇴한 계정입니다. (account withdrawn)")

    /// A row for a user this service has not heard of yet (their registration event is on its way).
    private func addUserRow(_ userId: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "INSERT INTO users (user_id) VALUES (\(userId)) ON CONFLICT (user_id) DO NOTHING", logger: logger)
    }

    /// The same, on a connection of its own: before running again a one-statement write that found no row for its user.
    private func addUserRow(_ userId: String, logger: Logger) async throws {
        try await client.statement(logger: logger) { try await addUserRow(userId, on: $0, logger: logger) }
    }

    /// A new post with its `post-created` outbox row, in one statement (`CreatePost`), on a connection of its own →
    /// its G1 JSON as stored, and its G2 JSON for a G2 post (`app_id`; migration 111). 401 when the author withdrew. An
    /// author this service has no row for yet gets one, and the statement runs again.
    func create(_ post: PostRecord, outbox: OutboxRow, logger: Logger) async throws -> (
        doc: PostJSONText, docG2: PostJSONText?
    ) {
        let statement = CreatePost(post: post, outbox: outbox)
        if let created = try await run(statement, logger: logger) { return created }
        try await addUserRow(post.userId, logger: logger)
        if let created = try await run(statement, logger: logger) { return created }
        throw APIError.internalError()  // the author's row was just written: the second run must find it
    }

    /// The post's documents; nil when the author has no row here (nothing was written).
    private func run(_ statement: CreatePost, logger: Logger) async throws -> (doc: PostJSONText, docG2: PostJSONText?)?
    {
        let row = try await client.statement(logger: logger) { connection in
            try await connection.execute(statement, logger: logger).collect().first
        }
        guard let row else { return nil }
        guard !row.withdrawn, let doc = row.doc else { throw Self.withdrawn }
        return (PostJSONText(text: doc), row.docG2.map { PostJSONText(text: $0) })
    }

    /// The visible post's author and product, locked for a comment (`LockReactedPost`); `nil` if it
    /// does not exist or its author withdrew.
    func lockForReaction(postId: String, on connection: PostgresConnection, logger: Logger) async throws -> (
        userId: String, productId: String?
    )? {
        for try await row in try await connection.execute(LockReactedPost(postId: postId), logger: logger) {
            return row
        }
        return nil
    }

    /// The visible post, locked for an edit or a deletion (`FOR UPDATE`) for the rest of the transaction; `nil` if
    /// it does not exist or its author withdrew. Callers that change the post's rows run `ensureUser` first: a user's
    /// row, then the post row, the order in which the user events' triggers lock them too (`MaterialisedPosts`).
    func lock(postId: String, on connection: PostgresConnection, logger: Logger) async throws -> (
        record: PostRecord, seq: Int64
    )? {
        let rows = try await connection.query(
            """
            SELECT post_id, user_id, product_id, title, content, content1, content2, content3, content4, content5,
                   price, files, hash_tags, created_at, updated_at, seq,
                   app_id, value6, value7, value8, value9, value10, latitude, longitude
            FROM posts WHERE post_id = \(postId) AND NOT author_withdrawn FOR UPDATE
            """, logger: logger)
        for try await row in rows.decode(
            (
                String, String, String?, String?, String?, String?, String?, String?, String?, String?, Int?, [String],
                [String], Date, Date, Int64, String?, String?, String?, String?, String?, String?, Double?, Double?
            ).self)
        {
            let record = PostRecord(
                postId: row.0, userId: row.1, productId: row.2, title: row.3, content: row.4, content1: row.5,
                content2: row.6, content3: row.7, content4: row.8, content5: row.9, price: row.10, appId: row.16,
                value6: row.17, value7: row.18, value8: row.19, value9: row.20, value10: row.21, latitude: row.22,
                longitude: row.23, files: row.11, hashTags: row.12, createdAt: row.13, updatedAt: row.14)
            return (record, row.15)
        }
        return nil
    }

    func update(_ post: PostRecord, seq: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            UPDATE posts SET product_id = \(post.productId), title = \(post.title), content = \(post.content),
                content1 = \(post.content1), content2 = \(post.content2), content3 = \(post.content3),
                content4 = \(post.content4), content5 = \(post.content5), price = \(post.price), files = \(post.files),
                hash_tags = \(post.hashTags), updated_at = \(post.updatedAt), value6 = \(post.value6),
                value7 = \(post.value7), value8 = \(post.value8), value9 = \(post.value9), value10 = \(post.value10),
                latitude = \(post.latitude), longitude = \(post.longitude)
            WHERE post_id = \(post.postId)
            """, logger: logger)
        try await replaceHashtags(
            postId: post.postId, tags: post.hashTags, seq: seq, productId: post.productId, on: connection,
            logger: logger)
    }

    /// Deletes the post; its hashtags, likes and comments go with it (ON DELETE CASCADE).
    func delete(postId: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM posts WHERE post_id = \(postId)", logger: logger)
    }

    func replaceHashtags(
        postId: String, tags: [String], seq: Int64, productId: String?,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query("DELETE FROM post_hashtags WHERE post_id = \(postId)", logger: logger)
        let keys = Array(Set(tags.map(Hashtags.key)))
        guard !keys.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO post_hashtags (tag, post_id, seq, product_id)
            SELECT tag, \(postId), \(seq), \(productId) FROM unnest(\(keys)::text[]) AS tag
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    // MARK: Likes

    /// Sets a like in one statement (`SetLike`) → the resulting state and whether it changed; nil when the post is
    /// gone or its author withdrew. 401 when the user withdrew. A user this service has no row for yet gets one, and
    /// the statement runs again. So does a statement whose outcome may rest on a stale view of the like (the same
    /// user's other like of the post committed while it waited for the post's lock): a toggle that changed nothing
    /// (a toggle always changes something, one request after the other), or an unlike that saw no like and deleted
    /// none. The second run's snapshot follows what the first waited for. A like that changed nothing is right
    /// either way (the like exists), so it is not run again.
    func setLike(_ statement: SetLike, logger: Logger) async throws -> (state: Bool, changed: Bool)? {
        var row = try await run(statement, logger: logger)
        if row.withdrawn == nil {
            try await addUserRow(statement.userId, logger: logger)
            row = try await run(statement, logger: logger)
        }
        if row.withdrawn == false, row.state != nil, !row.changed,
            statement.desired == nil || (statement.desired == false && row.visible == false)
        {
            row = try await run(statement, logger: logger)
        }
        switch row.withdrawn {
        case nil: throw APIError.internalError()  // the user's row was just written: the second run must find it
        case true?: throw Self.withdrawn
        case false?: return row.state.map { ($0, row.changed) }
        }
    }

    private func run(_ statement: SetLike, logger: Logger) async throws -> SetLike.Row {
        let row = try await client.statement(logger: logger) { connection in
            try await connection.execute(statement, logger: logger).collect().first
        }
        guard let row else { throw APIError.internalError() }  // the statement always answers one row
        return row
    }

    // MARK: Comments

    struct CommentRecord: Sendable {
        var commentId: String
        var postId: String
        var userId: String
        var content: String
        var createdAt: Date
    }

    func insertComment(_ comment: CommentRecord, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO comments (comment_id, post_id, user_id, content, created_at, updated_at)
            VALUES (\(comment.commentId), \(comment.postId), \(comment.userId), \(comment.content), \(comment.createdAt), \(comment.createdAt))
            """, logger: logger)
    }

    /// The comment of a visible post, locked; `nil` if gone.
    func lockComment(postId: String, commentId: String, on connection: PostgresConnection, logger: Logger) async throws
        -> CommentRecord?
    {
        let rows = try await connection.query(
            """
            SELECT c.comment_id, c.post_id, c.user_id, c.content, c.created_at FROM comments c
            WHERE c.comment_id = \(commentId) AND c.post_id = \(postId) FOR UPDATE
            """, logger: logger)
        for try await row in rows.decode((String, String, String, String, Date).self) {
            return CommentRecord(commentId: row.0, postId: row.1, userId: row.2, content: row.3, createdAt: row.4)
        }
        return nil
    }

    func updateComment(commentId: String, content: String, at: Date, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        try await connection.query(
            "UPDATE comments SET content = \(content), updated_at = \(at) WHERE comment_id = \(commentId)",
            logger: logger)
    }

    func deleteComment(commentId: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM comments WHERE comment_id = \(commentId)", logger: logger)
    }

    /// A user's public face (nick and profile image) from the read model.
    func creator(userId: String, on connection: PostgresConnection, logger: Logger) async throws -> CreatorJSON {
        let rows = try await connection.query(
            "SELECT nick, profile_image FROM users WHERE user_id = \(userId)", logger: logger)
        for try await (nick, image) in rows.decode((String, String?).self) {
            return CreatorJSON(userId: userId, nick: nick, profileImage: image)
        }
        return CreatorJSON(userId: userId, nick: "", profileImage: nil)
    }
}

extension LikeKind {
    /// The `posts.likes.kind` column value.
    var code: Int16 { self == .like ? 1 : 2 }
}

/// `SELECT withdrawn_at IS NULL` of one user of the read model (no row: not known to be withdrawn).
struct ActiveUserCheck: PostgresPreparedStatement {
    typealias Row = Bool
    static let name = "posts_active_user"
    static let sql = "SELECT withdrawn_at IS NULL FROM users WHERE user_id = $1"

    let userId: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(userId)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
}
