import Foundation
import PostgresNIO
import SNSPlatform

// The write side's statements that run on every like, comment or new post, prepared once per connection (named
// statements; with posts' generic plans, planned once too). The other writes' statements are sent unnamed.

/// A new post in one statement, prepared once per connection, run on its own (PostgreSQL's implicit transaction: all
/// or nothing): the author's read-model row share-locked and checked, the post row (whose `BEFORE` trigger writes
/// its G1 and G2 JSON, whose `AFTER` trigger fans it out to followers' feeds), its hashtags, its `post-created`
/// outbox row under the aggregate's advisory lock with the relay's wake-up (none when its channel is "": decision
/// 0036), and both documents back, which are the answer to the request (the same text a read of the post returns:
/// nothing else in the statement changes them).
/// It replaced a transaction of five round trips (`BEGIN`, the author's lock, the insert, the outbox row, `COMMIT`).
///
/// One row when the author has a row: `withdrawn` (then nothing was written) or the documents. No row when the
/// author is unknown here (their registration event is still on its way): nothing was written.
///
/// `post_hashtags` references `posts`: its rows are checked at the end of the statement, when the post exists.
struct CreatePost: PostgresPreparedStatement {
    typealias Row = (withdrawn: Bool, doc: String?, docG2: String?)
    static let name = "posts_create_post"
    static let sql = """
        WITH author AS MATERIALIZED (
            SELECT withdrawn_at IS NOT NULL AS withdrawn FROM users WHERE user_id = $2 FOR SHARE
        ), inserted AS (
            INSERT INTO posts (post_id, user_id, product_id, title, content, content1, content2, content3, content4,
                               content5, price, files, hash_tags, author_withdrawn, created_at, updated_at,
                               app_id, value6, value7, value8, value9, value10, latitude, longitude)
            SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, false, $14, $15, $16, $17, $18, $19, $20,
                   $21, $22, $23
            FROM author WHERE NOT author.withdrawn
            RETURNING seq, doc, doc_g2
        ), tags AS (
            INSERT INTO post_hashtags (tag, post_id, seq, product_id)
            SELECT tag, $1, i.seq, $3 FROM inserted i, unnest($24::text[]) AS tag
            ON CONFLICT DO NOTHING
        ), aggregate_lock AS MATERIALIZED (
            SELECT pg_advisory_xact_lock($25, hashtext($26)) FROM inserted
        ), appended AS (
            INSERT INTO outbox (event_id, topic, partition_key, event_type, payload, headers)
            SELECT $27, $28, $29, $30, $31::jsonb, $32::jsonb FROM aggregate_lock
            RETURNING 1
        ), notified AS MATERIALIZED (
            SELECT pg_notify($33, '') FROM appended WHERE $33 <> ''
        )
        SELECT a.withdrawn, i.doc, i.doc_g2, (SELECT count(*) FROM notified)
        FROM author a LEFT JOIN inserted i ON true
        """
    /// Given, not inferred: a statement is prepared with the types of its first call's values, and a `NULL` (an
    /// absent price, say) has none; PostgreSQL would then infer `integer` for the price, and a later call's 8-byte
    /// value would not fit.
    static let bindingDataTypes: [PostgresDataType] =
        Array(repeating: .text, count: 10) + [.int8, .textArray, .textArray, .timestamptz, .timestamptz]
        + Array(repeating: .text, count: 6) + [.float8, .float8, .textArray] + OutboxRow.bindingDataTypes

    let post: PostRecord
    let outbox: OutboxRow

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 33)
        bindings.append(post.postId)
        bindings.append(post.userId)
        bindings.append(post.productId)
        bindings.append(post.title)
        bindings.append(post.content)
        bindings.append(post.content1)
        bindings.append(post.content2)
        bindings.append(post.content3)
        bindings.append(post.content4)
        bindings.append(post.content5)
        bindings.append(post.price)
        bindings.append(post.files)
        bindings.append(post.hashTags)
        bindings.append(post.createdAt)
        bindings.append(post.updatedAt)
        bindings.append(post.appId)
        bindings.append(post.value6)
        bindings.append(post.value7)
        bindings.append(post.value8)
        bindings.append(post.value9)
        bindings.append(post.value10)
        bindings.append(post.latitude)
        bindings.append(post.longitude)
        bindings.append(Array(Set(post.hashTags.map(Hashtags.key))))
        outbox.append(to: &bindings)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (withdrawn, doc, docG2, _) = try row.decode((Bool, String?, String?, Int64).self)
        return (withdrawn, doc, docG2)
    }
}

/// `ensureUser`'s lock: whether the user's read-model row says withdrawn, share-locked; no row without one.
struct LockUser: PostgresPreparedStatement {
    typealias Row = Bool
    static let name = "posts_lock_user"
    static let sql = "SELECT withdrawn_at IS NOT NULL FROM users WHERE user_id = $1 FOR SHARE"

    let userId: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(userId)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
}

/// The post a comment is about: its author and product (what its events carry), `FOR NO KEY UPDATE`:
/// the comments' triggers rewrite the post's JSON (as the likes' do: `SetLike` locks the post the same way), so two
/// of them on one post run one after the other (a
/// share lock upgraded by both would deadlock), while foreign-key checks still pass. Callers run `ensureUser` first:
/// a user's row, then the post row, the order in which the user events' triggers lock them too.
struct LockReactedPost: PostgresPreparedStatement {
    typealias Row = (userId: String, productId: String?)
    static let name = "posts_lock_reacted_post"
    static let sql = """
        SELECT user_id, product_id FROM posts WHERE post_id = $1 AND NOT author_withdrawn FOR NO KEY UPDATE
        """

    let postId: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(postId)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (userId, productId) = try row.decode((String, String?).self)
        return (userId, productId)
    }
}

/// A like or a second like set in one statement, prepared once per connection, run on its own (PostgreSQL's implicit
/// transaction): the user's read-model row share-locked and checked, the post locked (`FOR NO KEY UPDATE`, as
/// `LockReactedPost`), the like inserted or deleted, and, only if that changed something, its `post-liked` or
/// `post-unliked` outbox row under the aggregate's advisory lock with the relay's wake-up (as `CreatePost`). It
/// replaced a transaction of six round trips (`BEGIN`, the user's lock, the post's lock, the like, the outbox row,
/// `COMMIT`).
///
/// `desired` is the state asked for (G1), or `nil` for the opposite of the current one (G0's toggle). Whether anything
/// changed is what the insert or delete did, not what the statement saw, so a repeat never yields a second event.
/// The statement's snapshot is taken before it waits for the post's lock, so when the same user's other like of this
/// post committed meanwhile, `visible` (the like as the snapshot saw it) may be out of date: `PostStore.setLike` runs
/// the statement again when the outcome could be stale (nothing changed after a toggle, or after an unlike that saw no
/// like), and the second run sees what the first waited for.
///
/// The like's time is taken after the post's lock (`clock_timestamp()`, to the millisecond), so the likes of one post
/// are stamped in the order they commit, which is the order social keeps the latest of (`UpsertSocialLikes`).
///
/// The outbox row is the `post-liked` envelope written by Swift with the post's author, product and time left
/// blank; the statement fills them in from the locked post (`payload.like.post_user_id`, `payload.like.product_id`,
/// removed when the post has none, as the encoder omits it, and `payload.like.at`) and, for an unlike, sets the type in
/// the envelope, the row and the `sns-event-type` header. The outbox's `payload` is `jsonb`, so the order of keys was
/// never kept.
///
/// One row: `withdrawn` (nil: the user has no row here yet, nothing was done), `state` (nil: the post is gone or its
/// author withdrew), `changed`, `visible`.
struct SetLike: PostgresPreparedStatement {
    typealias Row = (withdrawn: Bool?, state: Bool?, changed: Bool, visible: Bool?)
    static let name = "posts_set_like"
    static let sql = """
        WITH actor AS MATERIALIZED (
            SELECT withdrawn_at IS NOT NULL AS withdrawn FROM users WHERE user_id = $3 FOR SHARE
        ), post AS MATERIALIZED (
            SELECT p.user_id, p.product_id FROM posts p, actor a
            WHERE p.post_id = $1 AND NOT p.author_withdrawn AND NOT a.withdrawn
            FOR NO KEY UPDATE OF p
        ), desired AS MATERIALIZED (
            SELECT coalesce($4::bool, NOT v.visible) AS state, v.visible,
                   date_trunc('milliseconds', clock_timestamp()) AS at
            FROM (SELECT EXISTS (SELECT 1 FROM likes WHERE post_id = $1 AND kind = $2 AND user_id = $3) AS visible
                  FROM post) v
        ), inserted AS (
            INSERT INTO likes (post_id, kind, user_id, created_at)
            SELECT $1, $2, $3, desired.at FROM desired WHERE desired.state
            ON CONFLICT DO NOTHING
            RETURNING 1
        ), deleted AS (
            DELETE FROM likes
            WHERE post_id = $1 AND kind = $2 AND user_id = $3 AND EXISTS (SELECT 1 FROM desired WHERE NOT desired.state)
            RETURNING 1
        ), changed AS MATERIALIZED (
            SELECT EXISTS (SELECT 1 FROM inserted) OR EXISTS (SELECT 1 FROM deleted) AS changed
        ), aggregate_lock AS MATERIALIZED (
            SELECT pg_advisory_xact_lock($5, hashtext($6)) FROM changed WHERE changed.changed
        ), event AS MATERIALIZED (
            SELECT CASE WHEN d.state THEN $11 ELSE $12 END AS type, p.user_id, p.product_id,
                   to_char(d.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
            FROM aggregate_lock, desired d, post p
        ), appended AS (
            INSERT INTO outbox (event_id, topic, partition_key, event_type, payload, headers)
            SELECT $7, $8, $9, e.type,
                   CASE WHEN e.product_id IS NULL THEN enveloped #- '{payload,like,product_id}'
                        ELSE jsonb_set(enveloped, '{payload,like,product_id}', to_jsonb(e.product_id)) END,
                   jsonb_set($13::jsonb, '{sns-event-type}', to_jsonb(e.type))
            FROM event e,
                 jsonb_set(jsonb_set(jsonb_set($10::jsonb, '{type}', to_jsonb(e.type)),
                                     '{payload,like,post_user_id}', to_jsonb(e.user_id)),
                           '{payload,like,at}', to_jsonb(e.at)) AS enveloped
            RETURNING 1
        ), notified AS MATERIALIZED (
            SELECT pg_notify($14, '') FROM appended WHERE $14 <> ''
        )
        SELECT (SELECT withdrawn FROM actor), (SELECT state FROM desired), (SELECT changed FROM changed),
               (SELECT visible FROM desired), (SELECT count(*) FROM notified)
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .text, .int2, .text, .bool, .int4, .text, .uuid, .text, .text, .text, .text, .text, .text, .text,
    ]

    let postId: String
    let kind: Int16
    let userId: String
    let desired: Bool?
    /// The `post-liked` row, author, product and time blank.
    let liked: OutboxRow
    let unlikedType: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 14)
        bindings.append(postId)
        bindings.append(kind)
        bindings.append(userId)
        bindings.append(desired)
        bindings.append(liked.lockClass)
        bindings.append(liked.lockKey)
        bindings.append(liked.eventId)
        bindings.append(liked.topic)
        bindings.append(liked.partitionKey)
        bindings.append(liked.payload)
        bindings.append(liked.eventType)
        bindings.append(unlikedType)
        bindings.append(liked.headers)
        bindings.append(liked.channel)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (withdrawn, state, changed, visible, _) = try row.decode((Bool?, Bool?, Bool?, Bool?, Int64).self)
        return (withdrawn, state, changed ?? false, visible)
    }
}
