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

/// A like's state after its latest event (an older event changes nothing).
struct UpsertSocialLike: OneStatementEffect {
    static let name = "social_upsert_like"
    static let sql = parts(onlyIf: "true").standalone
    static let recordedSQL = RecordedEffect<Self>.sql(for: parts)
    static func parts(onlyIf condition: String) -> StatementParts {
        StatementParts(
            """
            INSERT INTO likes (post_id, user_id, kind, post_user_id, product_id, active, at)
            SELECT $1, $2, $3, $4, $5, $6, $7 WHERE \(condition)
            ON CONFLICT (post_id, user_id, kind) DO UPDATE SET active = EXCLUDED.active, at = EXCLUDED.at
            WHERE likes.at <= EXCLUDED.at
            """)
    }
    static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text, .text, .text, .bool, .timestamptz]

    let like: LikeChange
    let active: Bool

    func appendBindings(to bindings: inout PostgresBindings) throws {
        bindings.append(like.postId)
        bindings.append(like.userId)
        bindings.append(like.kind.rawValue)
        bindings.append(like.postUserId)
        bindings.append(like.productId)
        bindings.append(active)
        bindings.append(like.at)
    }
}
