/// The page statements of every list (see `PostQueries`): `(doc, position)` rows, the post's ready JSON and its
/// place in the list. `$1` = position bound (exclusive), `$2` = rows to fetch (limit + 1); the filters follow.
/// Each filter combination is its own statement so that a cached generic plan is still an index scan on the
/// right index.
///
/// Feed entries and hashtag rows carry their post's `seq` (set from the post when they are written; a post's `seq`
/// never changes), so their lists find each post by it — through `posts_all_idx`, whose `NOT author_withdrawn` is
/// the join's own condition — instead of by `post_id`: an 8-byte key instead of a text one, +10–16 % for the
/// statement of a following-feed page (pgbench, 2026-11-28).

/// `GET /v1/posts/{post_id}`: `$1` = post id.
enum OnePostPage: PageSQL {
    static let sql = "SELECT doc, seq AS position FROM posts WHERE post_id = $1 AND NOT author_withdrawn"
}

enum AllPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc, p.seq AS position FROM posts p
        WHERE NOT p.author_withdrawn AND p.seq < $1
        ORDER BY p.seq DESC LIMIT $2
        """
}

/// `$3` = product id. `IS NOT TRUE`, not `NOT`, on purpose: it keeps the planner off the partial `posts_all_idx`
/// (migration 102), whatever the products' statistics.
enum AllPostsOfProductPage: PageSQL {
    static let sql = """
        SELECT p.doc, p.seq AS position FROM posts p
        WHERE p.product_id = $3 AND p.author_withdrawn IS NOT TRUE AND p.seq < $1
        ORDER BY p.seq DESC LIMIT $2
        """
}

/// `$3` = user id.
enum UserPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc, p.seq AS position FROM posts p
        WHERE p.user_id = $3 AND NOT p.author_withdrawn AND p.seq < $1
        ORDER BY p.seq DESC LIMIT $2
        """
}

/// `$3` = user id, `$4` = product id.
enum UserPostsOfProductPage: PageSQL {
    static let sql = """
        SELECT p.doc, p.seq AS position FROM posts p
        WHERE p.user_id = $3 AND p.product_id = $4 AND NOT p.author_withdrawn AND p.seq < $1
        ORDER BY p.seq DESC LIMIT $2
        """
}

/// `$3` = lower-cased tag.
enum HashtagPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc, h.seq AS position FROM post_hashtags h
        JOIN posts p ON p.seq = h.seq AND NOT p.author_withdrawn
        WHERE h.tag = $3 AND h.seq < $1
        ORDER BY h.seq DESC LIMIT $2
        """
}

/// `$3` = lower-cased tag, `$4` = product id.
enum HashtagPostsOfProductPage: PageSQL {
    static let sql = """
        SELECT p.doc, h.seq AS position FROM post_hashtags h
        JOIN posts p ON p.seq = h.seq AND NOT p.author_withdrawn
        WHERE h.tag = $3 AND h.product_id = $4 AND h.seq < $1
        ORDER BY h.seq DESC LIMIT $2
        """
}

/// Posts the user liked (`$4` = 1) or marked (`$4` = 2), most recent mark first; `$3` = user id.
enum LikedPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc, l.seq AS position FROM likes l
        JOIN posts p ON p.post_id = l.post_id AND NOT p.author_withdrawn
        WHERE l.user_id = $3 AND l.kind = $4 AND l.seq < $1
        ORDER BY l.seq DESC LIMIT $2
        """
}

/// The same, `$5` = product id (filtered after the join: a user's likes are few).
enum LikedPostsOfProductPage: PageSQL {
    static let sql = """
        SELECT p.doc, l.seq AS position FROM likes l
        JOIN posts p ON p.post_id = l.post_id AND NOT p.author_withdrawn AND p.product_id = $5
        WHERE l.user_id = $3 AND l.kind = $4 AND l.seq < $1
        ORDER BY l.seq DESC LIMIT $2
        """
}

/// Posts of the people `$3` follows, from their fanned-out feed entries (`MaterialisedPosts`).
enum FollowingPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc, e.seq AS position FROM feed_entries e
        JOIN posts p ON p.seq = e.seq AND NOT p.author_withdrawn
        WHERE e.follower_id = $3 AND e.seq < $1
        ORDER BY e.seq DESC LIMIT $2
        """
}

/// The same, `$4` = product id.
enum FollowingPostsOfProductPage: PageSQL {
    static let sql = """
        SELECT p.doc, e.seq AS position FROM feed_entries e
        JOIN posts p ON p.seq = e.seq AND NOT p.author_withdrawn
        WHERE e.follower_id = $3 AND e.product_id = $4 AND e.seq < $1
        ORDER BY e.seq DESC LIMIT $2
        """
}
