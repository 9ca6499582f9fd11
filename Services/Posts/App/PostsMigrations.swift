import SNSPlatform

/// The posts schema. Platform tables (outbox, processed events) come first; these start at 100.
///
/// Every list is a backward index scan over a `seq` column (a total order: identity values never repeat),
/// filtered by partial indexes that leave out posts of withdrawn authors (decision 0004; `EXPLAIN` in
/// `Tests/PostsTests/QueryPlanTests.swift`).
enum PostsMigrations {
    static func all(schema: SQLIdentifier) -> [Migration] {
        let s = "\"\(schema.name)\""
        return [
            Migration(
                version: 100, name: "posts_comments_likes_read_models",
                sql: """
                    -- Read model of users, from user-registered/-updated/-withdrawn. A row may be created as a
                    -- placeholder (nick '') when a user acts before their registration event arrived.
                    CREATE TABLE \(s).users (
                        user_id text PRIMARY KEY,
                        nick text NOT NULL DEFAULT '',
                        profile_image text,
                        profile_at timestamptz,
                        withdrawn_at timestamptz
                    );

                    CREATE TABLE \(s).posts (
                        post_id text PRIMARY KEY,
                        seq bigint GENERATED ALWAYS AS IDENTITY,
                        user_id text NOT NULL,
                        product_id text,
                        title text,
                        content text,
                        content1 text,
                        content2 text,
                        content3 text,
                        content4 text,
                        content5 text,
                        price integer,
                        files text[] NOT NULL DEFAULT '{}',
                        hash_tags text[] NOT NULL DEFAULT '{}',
                        author_withdrawn boolean NOT NULL DEFAULT false,
                        created_at timestamptz NOT NULL,
                        updated_at timestamptz NOT NULL
                    );
                    CREATE INDEX posts_all_idx ON \(s).posts (seq DESC) WHERE NOT author_withdrawn;
                    CREATE INDEX posts_product_idx ON \(s).posts (product_id, seq DESC) WHERE NOT author_withdrawn;
                    CREATE INDEX posts_user_idx ON \(s).posts (user_id, seq DESC) WHERE NOT author_withdrawn;
                    CREATE INDEX posts_user_product_idx ON \(s).posts (user_id, product_id, seq DESC) WHERE NOT author_withdrawn;
                    CREATE INDEX posts_author_idx ON \(s).posts (user_id);

                    -- Hashtags, lower-cased for matching; the author's spelling stays in posts.hash_tags.
                    CREATE TABLE \(s).post_hashtags (
                        tag text NOT NULL,
                        post_id text NOT NULL REFERENCES \(s).posts (post_id) ON DELETE CASCADE,
                        seq bigint NOT NULL,
                        product_id text,
                        PRIMARY KEY (tag, post_id)
                    );
                    CREATE INDEX post_hashtags_tag_idx ON \(s).post_hashtags (tag, seq DESC);
                    CREATE INDEX post_hashtags_tag_product_idx ON \(s).post_hashtags (tag, product_id, seq DESC);
                    CREATE INDEX post_hashtags_post_idx ON \(s).post_hashtags (post_id);

                    -- kind 1 = like (likes), 2 = like-2 (likes2).
                    CREATE TABLE \(s).likes (
                        post_id text NOT NULL REFERENCES \(s).posts (post_id) ON DELETE CASCADE,
                        kind smallint NOT NULL CHECK (kind IN (1, 2)),
                        user_id text NOT NULL,
                        seq bigint GENERATED ALWAYS AS IDENTITY,
                        created_at timestamptz NOT NULL,
                        PRIMARY KEY (post_id, kind, user_id)
                    );
                    CREATE INDEX likes_mine_idx ON \(s).likes (user_id, kind, seq DESC);

                    CREATE TABLE \(s).comments (
                        comment_id text PRIMARY KEY,
                        post_id text NOT NULL REFERENCES \(s).posts (post_id) ON DELETE CASCADE,
                        user_id text NOT NULL,
                        content text NOT NULL,
                        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
                        created_at timestamptz NOT NULL,
                        updated_at timestamptz NOT NULL
                    );
                    CREATE INDEX comments_post_idx ON \(s).comments (post_id, seq DESC);

                    -- From purchase-completed (market). No foreign key: a purchase may outlive its post.
                    CREATE TABLE \(s).buyers (
                        post_id text NOT NULL,
                        user_id text NOT NULL,
                        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
                        PRIMARY KEY (post_id, user_id)
                    );

                    -- Read model of the follow graph, from user-followed/-unfollowed (social graph service).
                    CREATE TABLE \(s).follows (
                        follower_id text NOT NULL,
                        followee_id text NOT NULL,
                        PRIMARY KEY (follower_id, followee_id)
                    );
                    """),
            Migration(version: 101, name: "materialised_posts_and_following_feed", sql: MaterialisedPosts.migration(s)),
            // A product's page must never scan the whole feed: with few products (an app per product id), the cached
            // generic plan chose `posts_all_idx` and filtered by product, 16 000 rows read for a product whose posts
            // were not the newest (17 ms instead of 0.1 ms, measured 2026-11-24). The product index is no longer
            // partial, and `AllPostsOfProductPage` filters withdrawn authors with `IS NOT TRUE`, which the partial
            // all-posts index cannot serve, so the product index is the only index left for that statement.
            Migration(
                version: 102, name: "product_pages_use_the_product_index",
                sql: """
                    DROP INDEX \(s).posts_product_idx;
                    CREATE INDEX posts_product_idx ON \(s).posts (product_id, seq DESC);
                    """),
            Migration(version: 103, name: "g2_apps_places_and_title_search", sql: g2(s)),
            Migration(
                version: 104, name: "documents_and_title_grams_in_plpgsql", sql: MaterialisedPosts.plpgsqlMigration(s)),
            Migration(
                version: 105, name: "feed_entries_without_foreign_key",
                sql: MaterialisedPosts.feedEntriesWithoutForeignKeyMigration(s)),
            Migration(
                version: 106, name: "feed_entries_without_author_index",
                sql: MaterialisedPosts.feedEntriesWithoutAuthorIndexMigration(s)),
            Migration(
                version: 107, name: "g2_documents_parse_the_document_once",
                sql: MaterialisedPosts.g2ParsedOnceMigration(s)),
            Migration(
                version: 108, name: "earth_set_by_the_document_trigger",
                sql: MaterialisedPosts.earthByTriggerMigration(s)),
            Migration(
                version: 109, name: "documents_in_one_query", sql: MaterialisedPosts.documentsInOneQueryMigration(s)),
            Migration(version: 110, name: "g2_indexes_hold_g2_posts_only", sql: g2IndexesOfG2PostsOnly(s)),
            Migration(
                version: 111, name: "g2_documents_of_g2_posts_only", sql: MaterialisedPosts.g2DocumentsOfG2PostsOnly(s)),
        ]
    }

    /// Migration 110: the G2 lists' indexes hold G2 posts only (`app_id IS NOT NULL`). Every G2 statement names its app
    /// (`app_id = $3`, which implies the predicate; title search says so in as many words), and G0/G1 posts have no app,
    /// so those entries were never read, yet every G0/G1 post paid for them: the title's character pairs computed and
    /// entered in the GIN index (~25 entries for a 25-character title), and two B-tree entries under a NULL key. Measured
    /// 2026-11-28 (`EXPLAIN ANALYZE` of 200 post inserts by an author with 17 followers, rolled back, five rounds): the
    /// insert ~30 % cheaper without them, nearly all of it the GIN index. The migration locks the posts table until it
    /// commits (the builds read only G2 posts, but scan the table: seconds for a million posts).
    static func g2IndexesOfG2PostsOnly(_ s: String) -> String {
        """
        DROP INDEX \(s).posts_app_idx;
        DROP INDEX \(s).posts_app_product_idx;
        DROP INDEX \(s).posts_title_grams_idx;
        CREATE INDEX posts_app_idx ON \(s).posts (app_id, seq DESC) WHERE app_id IS NOT NULL;
        CREATE INDEX posts_app_product_idx ON \(s).posts (app_id, product_id, seq DESC) WHERE app_id IS NOT NULL;
        CREATE INDEX posts_title_grams_idx ON \(s).posts USING gin (\(s).title_grams(title)) WHERE app_id IS NOT NULL;
        """
    }

    /// A title's distinct lower-cased character pairs (`title_grams`' body; PL/pgSQL since migration 104).
    static let titleGramsBody = """
        SELECT coalesce(array_agg(DISTINCT substr(t.text, i, 2)), '{}')
        FROM (SELECT lower(coalesce(title, '')) AS text) t, generate_series(1, length(t.text) - 1) i
        """

    /// G2 (decision 0021): the app a post was written in (`ProductId`; NULL for G0/G1), `value6…value10` (`value1…5`
    /// are `content1…5`), the place (`latitude`, `longitude`, and `earth`, the point earthdistance indexes), and the
    /// index of title search: the title's lower-cased character pairs (`title_grams`), which fits Hangul (a
    /// two-syllable word is one pair; trigrams need three characters).
    static func g2(_ s: String) -> String {
        """
        CREATE EXTENSION IF NOT EXISTS cube WITH SCHEMA public;
        CREATE EXTENSION IF NOT EXISTS earthdistance WITH SCHEMA public;
        CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;

        ALTER TABLE \(s).posts
            ADD COLUMN app_id text,
            ADD COLUMN value6 text, ADD COLUMN value7 text, ADD COLUMN value8 text, ADD COLUMN value9 text,
            ADD COLUMN value10 text,
            ADD COLUMN latitude double precision,
            ADD COLUMN longitude double precision,
            ADD COLUMN earth public.earth GENERATED ALWAYS AS (public.ll_to_earth(latitude, longitude)) STORED,
            ADD CONSTRAINT posts_place_check CHECK ((latitude IS NULL) = (longitude IS NULL));

        -- An app's lists (newest first), with or without a category (= product_id). Not partial, and the statements
        -- filter withdrawn authors with `IS NOT TRUE`, for the reason of migration 102: apps are few and skewed, and
        -- the generic plan must not scan posts_all_idx and filter by app.
        CREATE INDEX posts_app_idx ON \(s).posts (app_id, seq DESC);
        CREATE INDEX posts_app_product_idx ON \(s).posts (app_id, product_id, seq DESC);
        -- Posts of an app near a point: the app is an index condition (btree_gist), so a generic plan always finds the
        -- nearest-neighbour order (`earth <-> center`) or the box (`earth <@ earth_box(center, radius)`) on this index,
        -- whatever the statistics say about the distance filter; earth_distance checks the candidates.
        CREATE INDEX posts_place_idx ON \(s).posts USING gist (app_id, earth) WHERE earth IS NOT NULL;

        CREATE FUNCTION \(s).title_grams(title text) RETURNS text[]
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            \(titleGramsBody)
        $$;
        CREATE INDEX posts_title_grams_idx ON \(s).posts USING gin (\(s).title_grams(title));

        -- Each post's G2 JSON, kept ready like `doc` (decision 0014) and by the same trigger, from `doc` and the row.
        \(MaterialisedPosts.g2Migration(s))
        """
    }
}
