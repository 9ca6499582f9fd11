import SNSPlatform

/// The social schema (name configurable for tests). Platform tables come first; these start at 100.
///
/// `follows` is this service's own write model. Everything else is a projection of other services' events
/// (users from `sns.users`; posts, comments and likes from `sns.posts`), written so that applying any event
/// twice, or events in another order than they happened, ends in the same rows: creations and deletions
/// meet in one row (a deletion that arrives first leaves a tombstone the creation cannot undo), likes keep
/// the state of their latest event (`at`), profiles the newest `profile_at`. Counts and rankings are queries
/// over these rows, so a replay from the beginning rebuilds them exactly (decision 0006).
enum SocialMigrations {
    static func all(schema: SQLIdentifier) -> [Migration] {
        let s = "\"\(schema.name)\""
        return [
            Migration(
                version: 100, name: "trigram_extension",
                sql: """
                    CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
                    """),
            Migration(
                version: 101, name: "users_follows_activity",
                sql: """
                    CREATE TABLE \(s).users (
                        user_id text PRIMARY KEY,
                        email text,
                        nick text NOT NULL DEFAULT '',
                        phone_num text,
                        birth_day text,
                        profile_image text,
                        profile_at timestamptz,
                        withdrawn_at timestamptz
                    );
                    -- User search: substring (trigram) and prefix matches on the lower-cased nick, active users only.
                    CREATE INDEX users_nick_trgm_idx ON \(s).users USING gin (lower(nick) public.gin_trgm_ops) WHERE withdrawn_at IS NULL;
                    CREATE INDEX users_nick_prefix_idx ON \(s).users (lower(nick) text_pattern_ops) WHERE withdrawn_at IS NULL;

                    CREATE TABLE \(s).follows (
                        follower_id text NOT NULL,
                        followee_id text NOT NULL,
                        created_at timestamptz NOT NULL,
                        PRIMARY KEY (follower_id, followee_id)
                    );
                    CREATE INDEX follows_following_idx ON \(s).follows (follower_id, created_at DESC);
                    CREATE INDEX follows_followers_idx ON \(s).follows (followee_id, created_at DESC);

                    CREATE TABLE \(s).posts (
                        post_id text PRIMARY KEY,
                        user_id text NOT NULL,
                        product_id text,
                        hash_tags text[] NOT NULL DEFAULT '{}',
                        created_at timestamptz NOT NULL,
                        updated_at timestamptz NOT NULL,
                        deleted_at timestamptz
                    );
                    CREATE INDEX posts_user_idx ON \(s).posts (user_id, created_at DESC) WHERE deleted_at IS NULL;
                    CREATE INDEX posts_window_idx ON \(s).posts (product_id, created_at) WHERE deleted_at IS NULL;

                    CREATE TABLE \(s).comments (
                        comment_id text PRIMARY KEY,
                        post_id text NOT NULL,
                        user_id text NOT NULL,
                        post_user_id text,
                        product_id text,
                        created_at timestamptz,
                        deleted_at timestamptz
                    );
                    CREATE INDEX comments_user_idx ON \(s).comments (user_id) WHERE deleted_at IS NULL;
                    CREATE INDEX comments_window_idx ON \(s).comments (product_id, created_at) WHERE deleted_at IS NULL;

                    -- kind 'like' | 'like2'; `active` is the state after the latest event (`at`).
                    CREATE TABLE \(s).likes (
                        post_id text NOT NULL,
                        user_id text NOT NULL,
                        kind text NOT NULL,
                        post_user_id text NOT NULL,
                        product_id text,
                        active boolean NOT NULL,
                        at timestamptz NOT NULL,
                        PRIMARY KEY (post_id, user_id, kind)
                    );
                    CREATE INDEX likes_user_idx ON \(s).likes (user_id, kind) WHERE active;
                    CREATE INDEX likes_window_idx ON \(s).likes (product_id, at) WHERE active;
                    """),
            Migration(
                version: 102, name: "ranking_activity",
                sql: """
                    -- The activity a ranking scores: likes (weight 1), like-2 marks (0.5), comments (2) and posts (3)
                    -- inside (since, as_of], optionally of one product, without withdrawn actors. An inlinable SQL
                    -- function, so each ranking query still uses the tables' (product_id, time) indexes.
                    CREATE FUNCTION \(s).ranking_activity(product text, since timestamptz, as_of timestamptz)
                    RETURNS TABLE (post_id text, post_user_id text, kind text, weight float8, at timestamptz)
                    LANGUAGE sql STABLE AS $$
                        SELECT l.post_id, l.post_user_id, l.kind, CASE l.kind WHEN 'like' THEN 1.0 ELSE 0.5 END::float8, l.at
                        FROM \(s).likes l LEFT JOIN \(s).users a ON a.user_id = l.user_id
                        WHERE l.active AND l.at > since AND l.at <= as_of AND a.withdrawn_at IS NULL
                          AND (product IS NULL OR l.product_id = product)
                        UNION ALL
                        SELECT c.post_id, c.post_user_id, 'comment', 2.0::float8, c.created_at
                        FROM \(s).comments c LEFT JOIN \(s).users a ON a.user_id = c.user_id
                        WHERE c.deleted_at IS NULL AND c.created_at > since AND c.created_at <= as_of AND a.withdrawn_at IS NULL
                          AND (product IS NULL OR c.product_id = product)
                        UNION ALL
                        SELECT p.post_id, p.user_id, 'post', 3.0::float8, p.created_at
                        FROM \(s).posts p
                        WHERE p.deleted_at IS NULL AND p.created_at > since AND p.created_at <= as_of
                          AND (product IS NULL OR p.product_id = product)
                    $$;
                    """),
        ]
    }
}
