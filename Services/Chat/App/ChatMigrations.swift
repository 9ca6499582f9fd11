import SNSPlatform

/// The chat schema (name configurable for tests). Platform tables come first; these start at 100.
///
/// `rooms` and `messages` are this service's own write model; `users` is a projection of `sns.users` (nick and
/// image for participants and senders, and who has withdrawn), written so that repeated or reordered events end
/// in the same row (the newest `profile_at` wins; a withdrawal is permanent).
enum ChatMigrations {
    static func all(schema: SQLIdentifier) -> [Migration] {
        let s = "\"\(schema.name)\""
        return [
            Migration(
                version: 100, name: "users_rooms_messages",
                sql: """
                    CREATE TABLE \(s).users (
                        user_id text PRIMARY KEY,
                        nick text NOT NULL DEFAULT '',
                        profile_image text,
                        profile_at timestamptz,
                        withdrawn_at timestamptz
                    );

                    -- One room per pair of users: the pair is stored ordered, so (a, b) and (b, a) meet in one row.
                    CREATE TABLE \(s).rooms (
                        room_id text PRIMARY KEY,
                        first_user text NOT NULL,
                        second_user text NOT NULL,
                        -- who opened it: participants are listed opener first, as the room was created
                        opened_by text NOT NULL,
                        created_at timestamptz NOT NULL,
                        updated_at timestamptz NOT NULL,
                        last_chat_id text,
                        CHECK (first_user < second_user),
                        UNIQUE (first_user, second_user)
                    );
                    CREATE INDEX rooms_second_user_idx ON \(s).rooms (second_user, updated_at DESC);
                    CREATE INDEX rooms_first_user_idx ON \(s).rooms (first_user, updated_at DESC);

                    CREATE TABLE \(s).messages (
                        chat_id text PRIMARY KEY,
                        room_id text NOT NULL REFERENCES \(s).rooms (room_id),
                        sender_id text NOT NULL,
                        content text NOT NULL,
                        files text[] NOT NULL DEFAULT '{}',
                        created_at timestamptz NOT NULL
                    );
                    CREATE INDEX messages_room_time_idx ON \(s).messages (room_id, created_at, chat_id);
                    """)
        ]
    }
}
