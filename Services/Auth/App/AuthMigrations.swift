import SNSPlatform

/// The auth schema. Platform tables (outbox, processed events) come first; these start at 100.
enum AuthMigrations {
    static func all(schema: SQLIdentifier) -> [Migration] {
        let s = "\"\(schema.name)\""
        return [
            Migration(
                version: 100, name: "accounts_and_refresh_tokens",
                sql: """
                    CREATE TABLE \(s).accounts (
                        user_id text PRIMARY KEY,
                        email text NOT NULL,
                        nick text NOT NULL,
                        password_hash text NOT NULL,
                        phone_num text,
                        birth_day text,
                        profile_image text,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        withdrawn_at timestamptz
                    );
                    -- Email and nick are unique among active accounts, case-insensitively; withdrawing frees them.
                    CREATE UNIQUE INDEX accounts_email_active_key ON \(s).accounts (lower(email)) WHERE withdrawn_at IS NULL;
                    CREATE UNIQUE INDEX accounts_nick_active_key ON \(s).accounts (lower(nick)) WHERE withdrawn_at IS NULL;

                    -- One row per login session. Only a SHA-256 of the opaque token is stored.
                    CREATE TABLE \(s).refresh_tokens (
                        session_id text PRIMARY KEY,
                        user_id text NOT NULL REFERENCES \(s).accounts (user_id),
                        token_hash bytea NOT NULL UNIQUE,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        expires_at timestamptz NOT NULL,
                        last_used_at timestamptz,
                        revoked_at timestamptz
                    );
                    CREATE INDEX refresh_tokens_user_active_idx ON \(s).refresh_tokens (user_id) WHERE revoked_at IS NULL;
                    """),
            Migration(
                version: 101, name: "accounts_updated_at",
                sql: """
                    -- When the profile (nick, phone, birthday, image) last changed; NULL until the first edit. It is the
                    -- `updated_at` of `user-updated`, and each edit's value is later than the previous one's (and than
                    -- `created_at`), so read models that keep the newest profile never go back.
                    ALTER TABLE \(s).accounts ADD COLUMN updated_at timestamptz;
                    """),
            Migration(
                version: 102, name: "federated_identities",
                sql: """
                    -- Federated sign-in (decision 0012): accounts created by Firebase, Apple or Kakao have no password.
                    ALTER TABLE \(s).accounts ALTER COLUMN password_hash DROP NOT NULL;

                    -- (provider, subject) → account. Active until the account is withdrawn (released_at); one active link per
                    -- identity. Released rows stay: they tell a replayed credential from a new sign-in.
                    CREATE TABLE \(s).identities (
                        provider text NOT NULL CHECK (provider IN ('firebase', 'apple', 'kakao')),
                        subject text NOT NULL CHECK (subject <> ''),
                        user_id text NOT NULL REFERENCES \(s).accounts (user_id),
                        phone_number text,
                        created_at timestamptz NOT NULL DEFAULT now(),
                        last_sign_in_at timestamptz NOT NULL DEFAULT now(),
                        released_at timestamptz
                    );
                    CREATE UNIQUE INDEX identities_active_key ON \(s).identities (provider, subject) WHERE released_at IS NULL;
                    CREATE INDEX identities_released_idx ON \(s).identities (provider, subject, released_at) WHERE released_at IS NOT NULL;
                    CREATE INDEX identities_user_idx ON \(s).identities (user_id) WHERE released_at IS NULL;

                    -- SHA-256 of the ID token / Kakao access token that opened a session, so a credential that signed into a
                    -- since-withdrawn account is refused when it is presented again.
                    ALTER TABLE \(s).refresh_tokens ADD COLUMN credential_hash bytea;
                    CREATE INDEX refresh_tokens_credential_idx ON \(s).refresh_tokens (credential_hash) WHERE credential_hash IS NOT NULL;
                    """),
            Migration(
                version: 103, name: "rotated_refresh_tokens",
                sql: """
                    -- G2 refreshes rotate the refresh token (decision 0021): each refresh adds a token to the session;
                    -- the one presented is marked replaced and keeps working for a short grace (a client that
                    -- refreshes in parallel presents it several times; each answer's token stays valid).
                    ALTER TABLE \(s).refresh_tokens ADD COLUMN replaced_at timestamptz;
                    CREATE TABLE \(s).rotated_tokens (
                        token_hash bytea PRIMARY KEY,
                        session_id text NOT NULL REFERENCES \(s).refresh_tokens (session_id) ON DELETE CASCADE,
                        issued_at timestamptz NOT NULL DEFAULT now(),
                        replaced_at timestamptz
                    );
                    CREATE INDEX rotated_tokens_session_idx ON \(s).rotated_tokens (session_id);
                    """),
        ]
    }
}
