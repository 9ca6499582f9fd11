/// Posts kept ready to send (decision 0014).
///
/// Every post carries its §3.1 JSON in `posts.posts.doc`, and every follower has the posts of the people they
/// follow listed in `posts.feed_entries`. Both are maintained by triggers inside the transaction of whatever
/// changes them — an HTTP write, an event applied by a consumer, a replay or a rebuild — so they can never
/// disagree with the tables they are derived from, and a page is one index scan returning ready text.
///
/// - `posts.post_document(post)` assembles one post from the tables, exactly as a read did before (keys in the
///   contract's order and spelling, unset optionals omitted, dates `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`, content of
///   withdrawn users left out). `PostDocumentTests` compare every stored `doc` with it.
/// - A `BEFORE INSERT OR UPDATE` trigger on `posts.posts` sets `doc`; anything else that changes a post's JSON
///   (likes, comments, buyers, a user's nick, image or withdrawal) runs `UPDATE posts.posts SET doc = NULL` on the
///   posts concerned, which that trigger recomputes (NOT NULL is checked after it).
/// - Writers lock in one order, the user's read-model row before the post row (`PostStore`), the same order as the
///   user events' triggers, so the two cannot deadlock each other.
enum MaterialisedPosts {
    /// `s`: the schema, quoted.
    static func migration(_ s: String) -> String {
        """
        ALTER TABLE \(s).posts ADD COLUMN doc text;
        -- Buyers in the order they paid (the event's time), not in the order their events happened to be applied:
        -- a rebuild re-reads the topics partition by partition and must come out identical.
        ALTER TABLE \(s).buyers ADD COLUMN paid_at timestamptz;
        ALTER TABLE \(s).buyers DROP COLUMN seq;
        CREATE INDEX comments_user_idx ON \(s).comments (user_id);
        CREATE INDEX follows_followee_idx ON \(s).follows (followee_id);

        CREATE FUNCTION \(s).post_document(p \(s).posts) RETURNS text
        LANGUAGE plpgsql STABLE AS $$
        DECLARE
            author_nick text;
            author_image text;
        BEGIN
            SELECT nick, profile_image INTO author_nick, author_image FROM \(s).users WHERE user_id = p.user_id;
            RETURN \(postDocument(s, nick: "author_nick", image: "author_image"));
        END $$;

        CREATE FUNCTION \(s).set_post_document() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            NEW.doc := \(s).post_document(NEW);
            RETURN NEW;
        END $$;
        CREATE TRIGGER post_document BEFORE INSERT OR UPDATE ON \(s).posts
            FOR EACH ROW EXECUTE FUNCTION \(s).set_post_document();

        -- Likes, comments and buyers: the post they belong to changes.
        CREATE FUNCTION \(s).refresh_post_of_row() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP <> 'DELETE' THEN
                UPDATE \(s).posts SET doc = NULL WHERE post_id = NEW.post_id;
            END IF;
            IF TG_OP = 'DELETE' OR OLD.post_id IS DISTINCT FROM NEW.post_id THEN
                UPDATE \(s).posts SET doc = NULL WHERE post_id = OLD.post_id;
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER likes_post_document AFTER INSERT OR UPDATE OR DELETE ON \(s).likes
            FOR EACH ROW EXECUTE FUNCTION \(s).refresh_post_of_row();
        CREATE TRIGGER comments_post_document AFTER INSERT OR UPDATE OR DELETE ON \(s).comments
            FOR EACH ROW EXECUTE FUNCTION \(s).refresh_post_of_row();
        CREATE TRIGGER buyers_post_document AFTER INSERT OR UPDATE OR DELETE ON \(s).buyers
            FOR EACH ROW EXECUTE FUNCTION \(s).refresh_post_of_row();

        -- A user's nick and image show on their posts and comments; their withdrawal hides their comments and
        -- likes. A row inserted late (the registration event after the user acted) changes the same.
        CREATE FUNCTION \(s).refresh_posts_of_user() RETURNS trigger
        LANGUAGE plpgsql AS $$
        DECLARE
            withdrawal_changed boolean;
        BEGIN
            IF TG_OP = 'INSERT' THEN
                withdrawal_changed := NEW.withdrawn_at IS NOT NULL;
            ELSE
                withdrawal_changed := OLD.withdrawn_at IS DISTINCT FROM NEW.withdrawn_at;
            END IF;
            UPDATE \(s).posts SET doc = NULL WHERE post_id IN (
                SELECT a.post_id FROM \(s).posts a WHERE a.user_id = NEW.user_id
                UNION SELECT c.post_id FROM \(s).comments c WHERE c.user_id = NEW.user_id
                UNION SELECT l.post_id FROM \(s).likes l WHERE withdrawal_changed AND l.user_id = NEW.user_id);
            RETURN NULL;
        END $$;
        CREATE TRIGGER users_post_documents AFTER INSERT ON \(s).users
            FOR EACH ROW EXECUTE FUNCTION \(s).refresh_posts_of_user();
        CREATE TRIGGER users_post_documents_on_change AFTER UPDATE ON \(s).users
            FOR EACH ROW
            WHEN (OLD.nick IS DISTINCT FROM NEW.nick OR OLD.profile_image IS DISTINCT FROM NEW.profile_image
                  OR OLD.withdrawn_at IS DISTINCT FROM NEW.withdrawn_at)
            EXECUTE FUNCTION \(s).refresh_posts_of_user();

        -- The following feed, fanned out on write: one row per (follower, post of someone they follow).
        -- Exactly {(f.follower_id, p.post_id) | f in follows, p in posts, p.user_id = f.followee_id}.
        CREATE TABLE \(s).feed_entries (
            follower_id text NOT NULL,
            seq bigint NOT NULL,
            post_id text NOT NULL REFERENCES \(s).posts (post_id) ON DELETE CASCADE,
            author_id text NOT NULL,
            product_id text,
            PRIMARY KEY (follower_id, seq)
        );
        CREATE INDEX feed_entries_product_idx ON \(s).feed_entries (follower_id, product_id, seq DESC);
        CREATE INDEX feed_entries_author_idx ON \(s).feed_entries (follower_id, author_id);
        CREATE INDEX feed_entries_post_idx ON \(s).feed_entries (post_id);

        CREATE FUNCTION \(s).fan_out_post() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO \(s).feed_entries (follower_id, seq, post_id, author_id, product_id)
                SELECT f.follower_id, NEW.seq, NEW.post_id, NEW.user_id, NEW.product_id
                FROM \(s).follows f WHERE f.followee_id = NEW.user_id;
            ELSIF OLD.product_id IS DISTINCT FROM NEW.product_id THEN
                UPDATE \(s).feed_entries SET product_id = NEW.product_id WHERE post_id = NEW.post_id;
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER posts_fan_out AFTER INSERT OR UPDATE OF product_id ON \(s).posts
            FOR EACH ROW EXECUTE FUNCTION \(s).fan_out_post();

        CREATE FUNCTION \(s).fan_out_follow() RETURNS trigger
        \(fanOutFollowBody(s, lockingPosts: false))
        CREATE TRIGGER follows_fan_out AFTER INSERT OR DELETE ON \(s).follows
            FOR EACH ROW EXECUTE FUNCTION \(s).fan_out_follow();

        -- What `sns-admin rebuild` compares of the documents.
        CREATE VIEW \(s).post_documents AS SELECT post_id, doc FROM \(s).posts;

        -- What existed before this migration.
        UPDATE \(s).posts SET doc = NULL;
        ALTER TABLE \(s).posts ALTER COLUMN doc SET NOT NULL;
        INSERT INTO \(s).feed_entries (follower_id, seq, post_id, author_id, product_id)
        SELECT f.follower_id, p.seq, p.post_id, p.user_id, p.product_id
        FROM \(s).follows f JOIN \(s).posts p ON p.user_id = f.followee_id;
        """
    }

    /// G2 (decision 0021): `doc_g2`, each post's G2 JSON, derived from `doc` (so visibility rules and the comment
    /// order stay in one place) and the row's G2 columns, set by the same `BEFORE` trigger whenever `doc` is, so
    /// every path that refreshes `doc` refreshes it too. `g2_document(doc, post)` is the derivation.
    static func g2Migration(_ s: String) -> String {
        """
        CREATE FUNCTION \(s).g2_path(path text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            SELECT CASE WHEN path IS NULL OR left(path, 1) = '/' THEN path ELSE '/' || path END
        $$;
        CREATE FUNCTION \(s).g2_user(u json) RETURNS json
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            \(g2UserBody(s))
        $$;
        CREATE FUNCTION \(s).g2_document(doc text, p \(s).posts) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        \(g2DocumentBody(s))
        $$;

        ALTER TABLE \(s).posts ADD COLUMN doc_g2 text;
        CREATE OR REPLACE FUNCTION \(s).set_post_document() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            NEW.doc := \(s).post_document(NEW);
            NEW.doc_g2 := \(s).g2_document(NEW.doc, NEW);
            RETURN NEW;
        END $$;
        UPDATE \(s).posts SET doc = NULL;
        ALTER TABLE \(s).posts ALTER COLUMN doc_g2 SET NOT NULL;
        CREATE OR REPLACE VIEW \(s).post_documents AS SELECT post_id, doc, doc_g2 FROM \(s).posts;
        """
    }

    /// `g2_user`'s body: a G1 creator object as G2 sends it. Migrations 103 and 107 are both written with it, so it
    /// must not change: a later change is a new function for a new migration.
    private static func g2UserBody(_ s: String) -> String {
        """
        SELECT json_strip_nulls(json_build_object(
            'user_id', u->'user_id', 'nick', u->'nick', 'profileImage', \(s).g2_path(u->>'profileImage')))
        """
    }

    /// The G2 document's query (`g2_document`'s body since migration 103). `d` is the G1 document as `json`: a subquery
    /// of the body's own until migration 107, then a PL/pgSQL variable (`source` empty).
    private static func g2DocumentBody(_ s: String, source: String = "FROM (SELECT doc::json AS d) x") -> String {
        """
            SELECT json_strip_nulls(json_build_object(
                'post_id', p.post_id, 'category', coalesce(p.product_id, ''), 'title', coalesce(p.title, ''),
                'price', p.price, 'content', coalesce(p.content, ''),
                'content1', p.content1, 'content2', p.content2, 'content3', p.content3, 'content4', p.content4,
                'content5', p.content5,
                'value1', p.content1, 'value2', p.content2, 'value3', p.content3, 'value4', p.content4,
                'value5', p.content5, 'value6', p.value6, 'value7', p.value7, 'value8', p.value8, 'value9', p.value9,
                'value10', p.value10,
                'createdAt', d->'createdAt', 'creator', \(s).g2_user(d->'creator'),
                'files', (SELECT coalesce(json_agg(\(s).g2_path(f) ORDER BY n), '[]'::json)
                          FROM unnest(p.files) WITH ORDINALITY AS x(f, n)),
                'likes', d->'likes', 'likes2', d->'likes2', 'buyers', d->'buyers', 'hashTags', d->'hashTags',
                'comments', (SELECT coalesce(json_agg(json_build_object(
                                    'comment_id', c->'comment_id', 'content', c->'content', 'createdAt', c->'createdAt',
                                    'creator', \(s).g2_user(c->'creator')) ORDER BY n), '[]'::json)
                             FROM json_array_elements(d->'comments') WITH ORDINALITY AS x(c, n)),
                'comment_count', json_array_length(d->'comments'),
                'geolocation', json_build_object('longitude', coalesce(p.longitude, 0), 'latitude', coalesce(p.latitude, 0))
            ))::text
            \(source)
        """
    }

    /// Migration 104: `g2_document` and `title_grams` in PL/pgSQL, same bodies. PostgreSQL parses and plans a SQL
    /// function that it cannot inline (these have a `FROM`) on every call, inside the statement that calls it: every
    /// new post, edit, like and comment re-parsed both (16 % of PostgreSQL's CPU while posts were being created,
    /// `perf` 2026-11-26). A PL/pgSQL function's statement is planned once per connection.
    static func plpgsqlMigration(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).g2_document(doc text, p \(s).posts) RETURNS text
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
        BEGIN
            RETURN (
        \(g2DocumentBody(s))
            );
        END $$;
        CREATE OR REPLACE FUNCTION \(s).title_grams(title text) RETURNS text[]
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
        BEGIN
            RETURN (\(PostsMigrations.titleGramsBody));
        END $$;
        """
    }

    /// Migration 107: the G1 document is parsed once per G2 document, and `g2_user` is inlined. Before, `g2_user`
    /// (SQL, `IMMUTABLE`, around `json_build_object`, which is only `STABLE`) could not be inlined, so PostgreSQL parsed
    /// and planned its body on every call: twice and more per document, 5 % of PostgreSQL's CPU while posts were
    /// being created (`perf`, 2026-11-27). And `d`, the subquery `doc::json`, was pulled up into each of its ~10
    /// uses, every one parsing the text again. `d` is now a PL/pgSQL variable, and `g2_user` is `STABLE`, so the
    /// planner puts its body in place of each call. Same bodies, same output.
    static func g2ParsedOnceMigration(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).g2_user(u json) RETURNS json
        LANGUAGE sql STABLE PARALLEL SAFE AS $$
            \(g2UserBody(s))
        $$;
        CREATE OR REPLACE FUNCTION \(s).g2_document(doc text, p \(s).posts) RETURNS text
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
        DECLARE
            d json := doc::json;
        BEGIN
            RETURN (
        \(g2DocumentBody(s, source: ""))
            );
        END $$;
        """
    }

    /// The document trigger's first step since migration 108: `earth` from the coordinates, when they (or `earth`
    /// itself) changed.
    static let earthFromPlace = """
        IF TG_OP = 'INSERT' OR NEW.latitude IS DISTINCT FROM OLD.latitude
                OR NEW.longitude IS DISTINCT FROM OLD.longitude OR NEW.earth IS DISTINCT FROM OLD.earth THEN
                NEW.earth := public.ll_to_earth(NEW.latitude, NEW.longitude);
            END IF;
        """

    /// Migration 108: `earth` (the place the G2 search indexes) is set by the `BEFORE` trigger instead of being a
    /// generated column. PostgreSQL prepares a stored generated column's expression at the start of every statement
    /// that inserts or updates the table, and `ll_to_earth` is a SQL function it inlines by parsing its body each
    /// time: 4 % of PostgreSQL's CPU while posts were created (`perf`, 2026-11-27), and every like and comment
    /// updates the post too. The trigger's PL/pgSQL is planned once per connection, and recomputes `earth` only when
    /// the place changed. Same function, same values; `DROP EXPRESSION` keeps the stored ones.
    static func earthByTriggerMigration(_ s: String) -> String {
        """
        ALTER TABLE \(s).posts ALTER COLUMN earth DROP EXPRESSION;
        CREATE OR REPLACE FUNCTION \(s).set_post_document() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            \(earthFromPlace)
            NEW.doc := \(s).post_document(NEW);
            NEW.doc_g2 := \(s).g2_document(NEW.doc, NEW);
            RETURN NEW;
        END $$;
        """
    }

    /// A post's §3.1 JSON as text, from the row `p` and its author's `nick` and `image` (expressions). `fresh`: a post
    /// being inserted, which can have no likes and no comments yet (their rows reference the post); buyers can (a
    /// purchase may be applied before its post, and outlives it), so they are always read.
    ///
    /// Migrations 101 and 109 are both written with it, so it must not change: a later change of the document is a new
    /// function for a new migration. `new_post_document` (`fresh`) relies on the foreign keys of `likes` and `comments`
    /// being checked at once (not deferrable); `CreatePostStatementTests` checks they are.
    static func postDocument(_ s: String, nick: String, image: String, fresh: Bool = false) -> String {
        let likes = { (kind: Int) in
            fresh
                ? "'{}'::text[]"
                : """
                ARRAY(SELECT l.user_id FROM \(s).likes l LEFT JOIN \(s).users lu ON lu.user_id = l.user_id
                                       WHERE l.post_id = p.post_id AND l.kind = \(kind) AND lu.withdrawn_at IS NULL ORDER BY l.seq)
                """
        }
        let comments =
            fresh
            ? "'[]'::json"
            : """
            (SELECT coalesce(json_agg(json_build_object(
                                            'comment_id', c.comment_id, 'content', c.content,
                                            'createdAt', to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                            'creator', json_build_object('user_id', c.user_id, 'nick', coalesce(cu.nick, ''),
                                                                         'profileImage', cu.profile_image))
                                        ORDER BY c.seq DESC), '[]'::json)
                                 FROM \(s).comments c LEFT JOIN \(s).users cu ON cu.user_id = c.user_id
                                 WHERE c.post_id = p.post_id AND cu.withdrawn_at IS NULL)
            """
        return """
            json_strip_nulls(json_build_object(
                    'post_id', p.post_id, 'product_id', p.product_id, 'title', p.title, 'content', p.content,
                    'content1', p.content1, 'content2', p.content2, 'content3', p.content3, 'content4', p.content4,
                    'content5', p.content5, 'price', p.price,
                    'createdAt', to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                    'creator', json_build_object('user_id', p.user_id, 'nick', coalesce(\(nick), ''), 'profileImage', \(image)),
                    'files', p.files,
                    'likes', \(likes(1)),
                    'likes2', \(likes(2)),
                    -- A completed sale stays sold when its buyer withdraws (BuyOrNot shows "sold" while buyers is non-empty).
                    'buyers', ARRAY(SELECT b.user_id FROM \(s).buyers b WHERE b.post_id = p.post_id ORDER BY b.paid_at NULLS FIRST, b.user_id),
                    'hashTags', p.hash_tags,
                    'comments', \(comments)
                ))::text
            """
    }

    /// Migration 109: a post's JSON in one query instead of two (the author's nick and image are joined, not read
    /// first), and a new post's without reading likes and comments it cannot have (`new_post_document`, run by the
    /// `BEFORE` trigger on `INSERT`). Each query a PL/pgSQL function runs starts and ends an executor, and the
    /// document's sub-queries were a fifth of PostgreSQL's CPU per new post (`perf`, 2026-11-27). Same output:
    /// `post_document` stays what every stored `doc` is compared with.
    static func documentsInOneQueryMigration(_ s: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).post_document(p \(s).posts) RETURNS text
        LANGUAGE plpgsql STABLE AS $$
        BEGIN
            RETURN (SELECT \(postDocument(s, nick: "a.nick", image: "a.profile_image"))
                    FROM (SELECT 1) one LEFT JOIN \(s).users a ON a.user_id = p.user_id);
        END $$;
        CREATE FUNCTION \(s).new_post_document(p \(s).posts) RETURNS text
        LANGUAGE plpgsql STABLE AS $$
        BEGIN
            RETURN (SELECT \(postDocument(s, nick: "a.nick", image: "a.profile_image", fresh: true))
                    FROM (SELECT 1) one LEFT JOIN \(s).users a ON a.user_id = p.user_id);
        END $$;
        \(setPostDocumentFunction(s, g2: "NEW.doc_g2 := \(s).g2_document(NEW.doc, NEW);"))
        """
    }

    /// `set_post_document`, the posts' `BEFORE` trigger function since migration 109: the place, the G1 document (lean
    /// for a new post), then `g2`, PL/pgSQL that sets `NEW.doc_g2`.
    static func setPostDocumentFunction(_ s: String, g2: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(s).set_post_document() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            \(earthFromPlace)
            IF TG_OP = 'INSERT' THEN
                NEW.doc := \(s).new_post_document(NEW);
            ELSE
                NEW.doc := \(s).post_document(NEW);
            END IF;
            \(g2)
            RETURN NEW;
        END $$;
        """
    }

    /// Migration 111: only G2 posts (`app_id IS NOT NULL`) keep a ready G2 document. A G0/G1 post appears in no G2
    /// list (each names its app), only when a G2 client asks for it by id (`G2OnePostPage`, `G2CommentsPage`), which
    /// derive it on the spot (`coalesce(doc_g2, g2_document(doc, p))`, the same function the trigger runs). Building
    /// it on every G0/G1 write was 0.11 ms of PostgreSQL's time per new post, and again on each like, comment or nick
    /// change that refreshes the post (`pg_stat_statements` with `track = all`, 2026-11-28). The existing G0/G1
    /// documents are cleared with the trigger off (the row's other columns do not change), so that a rebuild compares
    /// equal; that rewrites each G0/G1 post once.
    static func g2DocumentsOfG2PostsOnly(_ s: String) -> String {
        """
        ALTER TABLE \(s).posts ALTER COLUMN doc_g2 DROP NOT NULL;
        \(setPostDocumentFunction(s, g2: """
            IF NEW.app_id IS NOT NULL THEN
                NEW.doc_g2 := \(s).g2_document(NEW.doc, NEW);
            ELSE
                NEW.doc_g2 := NULL;
            END IF;
            """))
        ALTER TABLE \(s).posts DISABLE TRIGGER post_document;
        UPDATE \(s).posts SET doc_g2 = NULL WHERE app_id IS NULL AND doc_g2 IS NOT NULL;
        ALTER TABLE \(s).posts ENABLE TRIGGER post_document;
        """
    }

    /// `fan_out_follow`'s language and body: a follow adds the followee's posts to the follower's feed, an unfollow takes
    /// them out. Since migration 105 the copied posts are locked (`FOR KEY SHARE`, see there).
    /// - Parameter throughPosts: an unfollow finds the follower's rows through the followee's posts (`posts_author_idx`,
    ///   then the primary key `(follower_id, seq)`: one probe per post) instead of an index of its own (migration 106).
    static func fanOutFollowBody(_ s: String, lockingPosts: Bool, throughPosts: Bool = false) -> String {
        let lock = lockingPosts ? " FOR KEY SHARE OF p" : ""
        let unfollow =
            throughPosts
            ? """
            DELETE FROM \(s).feed_entries fe USING \(s).posts p
                WHERE p.user_id = OLD.followee_id AND fe.follower_id = OLD.follower_id AND fe.seq = p.seq;
            """
            : "DELETE FROM \(s).feed_entries WHERE follower_id = OLD.follower_id AND author_id = OLD.followee_id;"
        return """
            LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    INSERT INTO \(s).feed_entries (follower_id, seq, post_id, author_id, product_id)
                    SELECT NEW.follower_id, p.seq, p.post_id, p.user_id, p.product_id
                    FROM \(s).posts p WHERE p.user_id = NEW.followee_id\(lock)
                    ON CONFLICT DO NOTHING;
                ELSE
                    \(unfollow)
                END IF;
                RETURN NULL;
            END $$;
            """
    }

    /// Migration 105: the following feed's rows name their post without a foreign key. The key's check ran once per
    /// fanned-out row (a post by someone with 667 followers: 667 look-ups and row locks of the post the same statement
    /// had just inserted, ~30 % of the fan-out's time, measured 2026-11-27). What it guaranteed is kept by hand:
    /// - a post's deletion removes its feed rows (an `AFTER DELETE` trigger, as the cascade did);
    /// - the follow backfill locks the posts it copies (`FOR KEY SHARE`, as the key's check did), so a post deleted
    ///   meanwhile is either skipped (its deletion committed first) or waits for the backfill and then takes the new
    ///   rows with it.
    /// A new post's own fan-out needs neither: its row exists in the inserting transaction.
    static func feedEntriesWithoutForeignKeyMigration(_ s: String) -> String {
        """
        ALTER TABLE \(s).feed_entries DROP CONSTRAINT feed_entries_post_id_fkey;
        CREATE FUNCTION \(s).drop_feed_entries_of_post() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM \(s).feed_entries WHERE post_id = OLD.post_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER posts_feed_entries_gone AFTER DELETE ON \(s).posts
            FOR EACH ROW EXECUTE FUNCTION \(s).drop_feed_entries_of_post();
        CREATE OR REPLACE FUNCTION \(s).fan_out_follow() RETURNS trigger
        \(fanOutFollowBody(s, lockingPosts: true))
        """
    }

    /// Migration 106: `feed_entries_author_idx` served unfollows only, and cost every new post one more index entry per
    /// follower (PostgreSQL −7 to −11 % per new post without it, bench/results/2026-11-27-one-statement-consumers.md).
    /// An unfollow now deletes through the followee's posts: one primary-key probe per post.
    static func feedEntriesWithoutAuthorIndexMigration(_ s: String) -> String {
        """
        DROP INDEX \(s).feed_entries_author_idx;
        CREATE OR REPLACE FUNCTION \(s).fan_out_follow() RETURNS trigger
        \(fanOutFollowBody(s, lockingPosts: true, throughPosts: true))
        """
    }
}
