/// The page statements of the G2 lists (decision 0021): `(doc_g2, position)` rows, each post's ready G2 JSON. A G2
/// list shows the posts of the caller's app (`$3` = `ProductId`), optionally of one category (`product_id`); `$1` =
/// position bound (exclusive), `$2` = rows to fetch.

/// `GET /v1/posts/{post_id}/comments`: `{data: [comment]}`, the comments of the post's ready G2 document (newest
/// first, withdrawn users' left out, as in the post). `$1` = post id. A G0/G1 post has no ready G2 document (migration
/// 111): it is derived here, by the function that keeps G2 posts' documents.
enum G2CommentsPage: PageSQL {
    static let sql = """
        SELECT json_build_object('data', coalesce(p.doc_g2, g2_document(p.doc, p))::json -> 'comments')::text,
               p.seq AS position
        FROM posts p
        WHERE p.post_id = $1 AND NOT p.author_withdrawn
        """
}

/// Any post by id, whichever app (or generation) wrote it: `$1` = post id. A G0/G1 post's G2 document is derived
/// here (migration 111).
enum G2OnePostPage: PageSQL {
    static let sql = """
        SELECT coalesce(p.doc_g2, g2_document(p.doc, p)), p.seq AS position FROM posts p
        WHERE p.post_id = $1 AND NOT p.author_withdrawn
        """
}

/// `IS NOT TRUE`: only `posts_app_idx` can serve it (see migration 103).
enum G2AllPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc_g2, p.seq AS position FROM posts p
        WHERE p.app_id = $3 AND p.author_withdrawn IS NOT TRUE AND p.seq < $1
        ORDER BY p.seq DESC LIMIT $2
        """
}

/// `$4` = category. `IS NOT TRUE` keeps the plan on `posts_app_product_idx` (as `AllPostsOfProductPage`).
enum G2CategoryPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc_g2, p.seq AS position FROM posts p
        WHERE p.app_id = $3 AND p.product_id = $4 AND p.author_withdrawn IS NOT TRUE AND p.seq < $1
        ORDER BY p.seq DESC LIMIT $2
        """
}

/// `$4` = user id, `$5` = category or NULL.
enum G2UserPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc_g2, p.seq AS position FROM posts p
        WHERE p.user_id = $4 AND p.app_id = $3 AND ($5::text IS NULL OR p.product_id = $5)
          AND NOT p.author_withdrawn AND p.seq < $1
        ORDER BY p.seq DESC LIMIT $2
        """
}

/// `$4` = lower-cased tag, `$5` = category or NULL.
enum G2HashtagPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc_g2, h.seq AS position FROM post_hashtags h
        JOIN posts p ON p.seq = h.seq AND NOT p.author_withdrawn AND p.app_id = $3
        WHERE h.tag = $4 AND ($5::text IS NULL OR h.product_id = $5) AND h.seq < $1
        ORDER BY h.seq DESC LIMIT $2
        """
}

/// `$4` = user id, `$5` = like kind, `$6` = category or NULL.
enum G2LikedPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc_g2, l.seq AS position FROM likes l
        JOIN posts p ON p.post_id = l.post_id AND NOT p.author_withdrawn AND p.app_id = $3
                        AND ($6::text IS NULL OR p.product_id = $6)
        WHERE l.user_id = $4 AND l.kind = $5 AND l.seq < $1
        ORDER BY l.seq DESC LIMIT $2
        """
}

/// `$4` = follower, `$5` = category or NULL.
enum G2FollowingPostsPage: PageSQL {
    static let sql = """
        SELECT p.doc_g2, e.seq AS position FROM feed_entries e
        JOIN posts p ON p.seq = e.seq AND NOT p.author_withdrawn AND p.app_id = $3
        WHERE e.follower_id = $4 AND ($5::text IS NULL OR e.product_id = $5) AND e.seq < $1
        ORDER BY e.seq DESC LIMIT $2
        """
}

/// Title search: `$4` = the text searched for, `$5` = category or NULL. The character pairs narrow the candidates on
/// `posts_title_grams_idx`; `strpos` keeps the titles that really contain the text (case-insensitively). The app and
/// withdrawal filters are written so that no other index can serve them (`IS TRUE`, `IS NOT TRUE`): a generic plan
/// that scanned an app's posts and computed every title's pairs would cost a whole app per search. `app_id IS NOT NULL`
/// is the pairs index's own predicate (G2 posts only, migration 110), spelled out so that every plan may use it.
enum G2TitleSearchPage: PageSQL {
    static let sql = """
        SELECT p.doc_g2, p.seq AS position FROM posts p
        WHERE title_grams(p.title) @> title_grams($4) AND strpos(lower(p.title), lower($4)) > 0
          AND p.app_id IS NOT NULL AND (p.app_id = $3) IS TRUE AND ($5::text IS NULL OR p.product_id = $5)
          AND p.author_withdrawn IS NOT TRUE AND p.seq < $1
        ORDER BY p.seq DESC LIMIT $2
        """
}

/// Title search for one character, which has no character pair to look up: the app's posts by recency, `strpos` on
/// each title (`posts_app_idx`; bounded by the page, or by the app's posts when few titles match).
enum G2TitleScanPage: PageSQL {
    static let sql = """
        SELECT p.doc_g2, p.seq AS position FROM posts p
        WHERE p.app_id = $3 AND p.author_withdrawn IS NOT TRUE AND ($5::text IS NULL OR p.product_id = $5)
          AND strpos(lower(p.title), lower($4)) > 0 AND p.seq < $1
        ORDER BY p.seq DESC LIMIT $2
        """
}
