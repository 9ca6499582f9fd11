import SNSPlatform

/// The market schema (name configurable for tests). Platform tables come first; these start at 100.
///
/// - `products`: read model of posts (price, title, seller), from `sns.posts`; a deletion leaves a tombstone
///   that a replayed creation cannot undo, and an older snapshot never overwrites a newer one.
/// - `withdrawn_users`: from `sns.users`; their tokens are refused and their posts are no longer for sale.
/// - `payments`: verified purchases, the write model. `imp_uid` and `merchant_uid` are unique, so one PortOne
///   payment is recorded once whoever gets there first (the app, a webhook, the re-verifier).
/// - `claims`: who asked us to verify which `imp_uid` for which post, kept until settled, so a payment whose
///   verification could not finish (PortOne unreachable, the app gave up) is completed later (decision 0007).
/// - `rejections`: payments we refused, with the cancel's state: the audit trail and the work list of cancels
///   that could not reach PortOne yet.
enum MarketMigrations {
    static func all(schema: SQLIdentifier) -> [Migration] {
        let s = "\"\(schema.name)\""
        return [
            Migration(
                version: 100, name: "products_payments_claims",
                sql: """
                    CREATE TABLE \(s).products (
                        post_id text PRIMARY KEY,
                        seller_id text NOT NULL,
                        product_id text,
                        title text,
                        price integer,
                        updated_at timestamptz NOT NULL,
                        deleted_at timestamptz
                    );
                    CREATE INDEX products_seller_idx ON \(s).products (seller_id);

                    CREATE TABLE \(s).withdrawn_users (
                        user_id text PRIMARY KEY,
                        withdrawn_at timestamptz NOT NULL
                    );

                    CREATE TABLE \(s).payments (
                        payment_id text PRIMARY KEY,
                        seq bigint GENERATED ALWAYS AS IDENTITY,
                        imp_uid text NOT NULL UNIQUE,
                        merchant_uid text NOT NULL UNIQUE,
                        buyer_id text NOT NULL,
                        post_id text NOT NULL,
                        product_name text,
                        price integer NOT NULL,
                        paid_at timestamptz NOT NULL,
                        recorded_at timestamptz NOT NULL DEFAULT now(),
                        recorded_by text NOT NULL CHECK (recorded_by IN ('app', 'webhook', 'reverifier')),
                        -- The app has been answered 200 for this payment: a second validation of it is a 409.
                        acknowledged boolean NOT NULL
                    );
                    -- GET /v1/payments/me: newest first.
                    CREATE INDEX payments_buyer_idx ON \(s).payments (buyer_id, paid_at DESC, seq DESC);

                    CREATE TABLE \(s).claims (
                        imp_uid text PRIMARY KEY,
                        buyer_id text NOT NULL,
                        post_id text NOT NULL,
                        product_name text,
                        source text NOT NULL CHECK (source IN ('app', 'custom_data')),
                        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'completed', 'rejected', 'expired')),
                        attempts integer NOT NULL DEFAULT 0,
                        next_attempt_at timestamptz NOT NULL DEFAULT now(),
                        last_error text,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        updated_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX claims_due_idx ON \(s).claims (next_attempt_at) WHERE state = 'pending';

                    CREATE TABLE \(s).rejections (
                        imp_uid text PRIMARY KEY,
                        merchant_uid text,
                        buyer_id text,
                        post_id text,
                        reason text NOT NULL,
                        paid_amount integer,
                        expected_amount integer,
                        cancel_state text NOT NULL CHECK (cancel_state IN ('not_needed', 'pending', 'done', 'refused')),
                        cancel_attempts integer NOT NULL DEFAULT 0,
                        next_attempt_at timestamptz NOT NULL DEFAULT now(),
                        last_error text,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        updated_at timestamptz NOT NULL DEFAULT now()
                    );
                    CREATE INDEX rejections_cancel_due_idx ON \(s).rejections (next_attempt_at) WHERE cancel_state = 'pending';
                    """),
            // The price the buyer's app sent: the amount to verify for posts without a `price` (decision 0013).
            Migration(
                version: 101, name: "claims_stated_price",
                sql: """
                    ALTER TABLE \(s).claims ADD COLUMN stated_price integer CHECK (stated_price IS NULL OR stated_price > 0);
                    """),
        ]
    }
}
