import Foundation
import PostgresNIO
import SNSPlatform

// The statements social's projection runs for every post and like event, prepared once per connection (decision
// 0023): sent as queries they were parsed and planned on every execution. Tables are unqualified, found through the
// service's search path.

/// Snapshots of distinct posts, one or a run, in one statement (hashtags travel as a JSON array per post: the posts'
/// lists differ in length). A newer snapshot wins; a deleted row takes any snapshot, as the events arrive.
struct UpsertSocialPosts: OneStatementEffect {
    static let name = "social_upsert_posts"
    static let sql = parts(onlyIf: "true").standalone
    static let recordedSQL = RecordedEffect<Self>.sql(for: parts)
    static func parts(onlyIf condition: String) -> StatementParts {
        StatementParts(
            """
            INSERT INTO posts (post_id, user_id, product_id, hash_tags, created_at, updated_at)
            SELECT p.post_id, p.user_id, CASE WHEN p.no_product THEN NULL ELSE p.product_id END,
                   ARRAY(SELECT jsonb_array_elements_text(p.tags::jsonb)), p.created_at, p.updated_at
            FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[], $5::text[], $6::timestamptz[], $7::timestamptz[])
                 AS p(post_id, user_id, product_id, no_product, tags, created_at, updated_at)
            WHERE \(condition)
            ON CONFLICT (post_id) DO UPDATE SET
                product_id = EXCLUDED.product_id, hash_tags = EXCLUDED.hash_tags, created_at = EXCLUDED.created_at,
                updated_at = EXCLUDED.updated_at
            WHERE posts.deleted_at IS NOT NULL OR posts.updated_at <= EXCLUDED.updated_at
            """)
    }
    static let bindingDataTypes: [PostgresDataType] = [
        .textArray, .textArray, .textArray, .boolArray, .textArray, .timestamptzArray, .timestamptzArray,
    ]

    let posts: [PostSnapshot]

    func appendBindings(to bindings: inout PostgresBindings) throws {
        bindings.append(posts.map(\.postId))
        bindings.append(posts.map(\.userId))
        bindings.append(posts.map { $0.productId ?? "" })
        bindings.append(posts.map { $0.productId == nil })
        bindings.append(try posts.map { String(decoding: try JSONEncoder().encode($0.hashTags), as: UTF8.self) })
        bindings.append(posts.map(\.createdAt))
        bindings.append(posts.map(\.updatedAt))
    }
}

/// Likes' states after their latest events, one like or many in one statement. Per (post, user, kind) the latest
/// event wins — the greatest `at`, the later one of equal `at`s — and only over an older stored state; a new row
/// takes its post's author and product from the first of its events. The same rows as applying the events one by
/// one with `likes.at <= EXCLUDED.at` (an `INSERT … ON CONFLICT` may touch a row only once, hence the reduction).
struct UpsertSocialLikes: OneStatementEffect {
    static let name = "social_upsert_likes"
    static let sql = parts(onlyIf: "true").standalone
    static let recordedSQL = RecordedEffect<Self>.sql(for: parts)
    static func parts(onlyIf condition: String) -> StatementParts {
        StatementParts(
            """
            INSERT INTO likes (post_id, user_id, kind, post_user_id, product_id, active, at)
            SELECT latest.post_id, latest.user_id, latest.kind, first.post_user_id,
                   CASE WHEN first.no_product THEN NULL ELSE first.product_id END, latest.active, latest.at
            FROM (SELECT DISTINCT ON (post_id, user_id, kind) post_id, user_id, kind, active, at
                  FROM unnest($1::text[], $2::text[], $3::text[], $6::bool[], $7::timestamptz[]) WITH ORDINALITY
                       AS e(post_id, user_id, kind, active, at, n)
                  ORDER BY post_id, user_id, kind, at DESC, n DESC) latest
            JOIN (SELECT DISTINCT ON (post_id, user_id, kind) post_id, user_id, kind, post_user_id, product_id, no_product
                  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $8::bool[]) WITH ORDINALITY
                       AS e(post_id, user_id, kind, post_user_id, product_id, no_product, n)
                  ORDER BY post_id, user_id, kind, n) first USING (post_id, user_id, kind)
            WHERE \(condition)
            ON CONFLICT (post_id, user_id, kind) DO UPDATE SET active = EXCLUDED.active, at = EXCLUDED.at
            WHERE likes.at <= EXCLUDED.at
            """)
    }
    static let bindingDataTypes: [PostgresDataType] = [
        .textArray, .textArray, .textArray, .textArray, .textArray, .boolArray, .timestamptzArray, .boolArray,
    ]

    /// In the order the events arrived.
    let likes: [(like: LikeChange, active: Bool)]

    func appendBindings(to bindings: inout PostgresBindings) throws {
        bindings.append(likes.map(\.like.postId))
        bindings.append(likes.map(\.like.userId))
        bindings.append(likes.map(\.like.kind.rawValue))
        bindings.append(likes.map(\.like.postUserId))
        bindings.append(likes.map { $0.like.productId ?? "" })
        bindings.append(likes.map(\.active))
        bindings.append(likes.map(\.like.at))
        bindings.append(likes.map { $0.like.productId == nil })
    }
}
