/// The system's parts, spelled once: each service with its database schema, its port in the local stack and its
/// consumer groups (the topics they read, the read-model tables they write, how those are emptied for a rebuild).
///
/// Who reads it: every service (its consumer group's name and topics), `sns-admin` (outboxes, groups, replays,
/// rebuilds), the dev broker (through `Topic.catalog`), the local stack (`sns-admin catalog`, which `./sns` reads
/// after building) and the deployment tests, which check that docker-compose, the gateway's routes and the
/// PostgreSQL roles script name the same services, schemas and topics. Adding a service: docs/operations.md.
package enum SystemCatalog {
    /// One deployable service. Its `name` is also its program, its compose service, its gateway upstream and its
    /// database role.
    package struct Service: Sendable, Equatable {
        package let name: String
        /// The PostgreSQL schema it owns (its outbox and processed-event records live there too).
        package let schema: String
        /// Its HTTP port in the local stack is the profile's port base plus this.
        package let localPortOffset: Int
        package let consumers: [Consumer]
        /// The public paths the gateway sends to it, G1 (`/v1/…`) and G0 alike (`deploy/nginx/routes.conf` is
        /// written from these).
        package let routes: [GatewayRoute]

        package init(
            name: String, schema: String, localPortOffset: Int, routes: [GatewayRoute], consumers: [Consumer]
        ) {
            self.name = name
            self.schema = schema
            self.localPortOffset = localPortOffset
            self.consumers = consumers
            self.routes = routes
        }

        /// The consumer group the service runs on `schema`: its catalog name on its own schema; a test's private
        /// schema gets a group of its own (suffixed), so it never shares partitions with the stack's process.
        package func group(_ consumer: Consumer, onSchema schema: String) -> String {
            schema == self.schema ? consumer.group : "\(consumer.group)-\(schema)"
        }
    }

    /// One consumer group and the read model it keeps.
    package struct Consumer: Sendable, Equatable {
        package let group: String
        package let topics: [String]
        /// Present when the read model can be emptied and rebuilt from the topics (`sns-admin rebuild`).
        package let rebuild: RebuildPlan?

        package init(group: String, topics: [String], rebuild: RebuildPlan?) {
            self.group = group
            self.topics = topics
            self.rebuild = rebuild
        }
    }

    /// How a read model is rebuilt: the statements that empty it (fixed SQL, never input) and the tables whose row
    /// counts and checksum summarise it (both qualified with the owner's schema).
    package struct RebuildPlan: Sendable, Equatable {
        package let name: String
        package let clear: [String]
        package let tables: [String]

        package init(name: String, clear: [String], tables: [String]) {
            self.name = name
            self.clear = clear
            self.tables = tables
        }
    }

    /// Accounts, sessions and tokens.
    package static let auth = Service(
        name: "auth", schema: "auth", localPortOffset: 1,
        routes: [
            .exact("/v1/users/join"), .exact("/v1/users/login"),
            // Federated sign-in: /v1/users/login/firebase, …/apple, …/kakao (decision 0012).
            .prefix("/v1/users/login/"),
            .exact("/v1/users/withdraw"), .exact("/v1/users/logout"), .exact("/v1/validation/email"),
            .exact("/v1/users/validation/email"),
            .prefix("/v1/auth/"), .exact("/.well-known/jwks.json"),
            // G0 (2023): no /v1 prefix.
            .exact("/join"), .exact("/login"), .exact("/refresh"), .exact("/withdraw"), .exact("/validation/email"),
        ],
        consumers: [])

    /// Posts, comments, likes, hashtags and feeds.
    package static let posts = Service(
        name: "posts", schema: "posts", localPortOffset: 2,
        routes: [
            .exact("/v1/posts"), .prefix("/v1/posts/"),
            // G0 posts are multipart with up to 5 images inline (the gateway's server-wide 30m bound).
            .exact("/post"), .prefix("/post/"),
        ],
        consumers: [
            Consumer(
                group: "posts-read-models", topics: [Topic.users, Topic.follows, Topic.payments],
                // TRUNCATE fires no row triggers: the fanned-out feed goes with the follows, and every post's ready
                // JSON is recomputed against the emptied read models (the replay's rows refresh it again).
                rebuild: RebuildPlan(
                    name: "posts-read-models",
                    clear: [
                        "TRUNCATE posts.users, posts.follows, posts.buyers, posts.feed_entries",
                        "UPDATE posts.posts SET author_withdrawn = false, doc = NULL",
                    ],
                    tables: [
                        "posts.users", "posts.follows", "posts.buyers", "posts.feed_entries",
                        "posts.post_documents",
                    ]))
        ])

    /// Media's file references are not rebuildable on purpose: while they were rebuilt, its garbage collector
    /// would see files as unreferenced.
    package static let media = Service(
        name: "media", schema: "media", localPortOffset: 3,
        routes: [
            // Uploads stream through unbuffered: media enforces the API's limits while reading and answers 400 with a
            // JSON message; nginx only cuts off bodies beyond what 5 files could ever need (5 videos of 10 MB,
            // decision 0046).
            .exact("/v1/posts/files", bodyLimit: "60m", streamed: true),
            .prefix("/v1/uploads/"), .prefix("/uploads/"),
        ],
        consumers: [
            Consumer(group: "media-references", topics: [Topic.posts, Topic.users, Topic.chats], rebuild: nil)
        ])

    /// The social graph: follows, profiles, user search, rankings.
    package static let social = Service(
        name: "social", schema: "social", localPortOffset: 4,
        routes: [
            .prefix("/v1/follow/"),
            .exact("/v1/users/me/profile", bodyLimit: "6m"),  // one profile image
            .exact("/v1/users/me/nick/random"), .exact("/v1/users/search"), .pattern("^/v1/users/[^/]+/profile$"),
            .prefix("/v1/rankings/"),
            .prefix("/follow/"), .exact("/profile/me", bodyLimit: "6m"), .prefix("/profile/"),
        ],
        consumers: [
            Consumer(
                group: "social-projections", topics: [Topic.users, Topic.posts],
                rebuild: RebuildPlan(
                    name: "social",
                    clear: ["TRUNCATE social.users, social.posts, social.comments, social.likes"],
                    tables: ["social.users", "social.posts", "social.comments", "social.likes"]))
        ])

    /// Payment validation and history; PortOne's webhook (no SesacKey: the service exempts that one path and verifies
    /// every notification by asking PortOne; compose's gateway also rate-limits it).
    package static let market = Service(
        name: "market", schema: "market", localPortOffset: 5,
        routes: [.prefix("/v1/payments/")],
        consumers: [
            Consumer(
                group: "market-products", topics: [Topic.posts, Topic.users],
                rebuild: RebuildPlan(
                    name: "market-products",
                    clear: ["TRUNCATE market.products, market.withdrawn_users"],
                    tables: ["market.products", "market.withdrawn_users"]))
        ])

    /// One-to-one chat rooms and messages, and their Socket.IO delivery (decision 0020). `sns.chats` carries each
    /// message to every chat replica's sockets.
    package static let chat = Service(
        name: "chat", schema: "chat", localPortOffset: 6,
        routes: [
            .exact("/v1/chats"), .pattern("^/v1/chats/[^/]+$"),
            // A room's upload (checked by chat, stored by media): 5 videos of 10 MB plus the form (decision 0046).
            .pattern("^/v1/chats/[^/]+/files$", bodyLimit: "60m"),
            .socket("/socket.io/"),
        ],
        consumers: [
            Consumer(
                group: "chat-users", topics: [Topic.users],
                rebuild: RebuildPlan(name: "chat-users", clear: ["TRUNCATE chat.users"], tables: ["chat.users"]))
        ])

    /// Every service, in start order (auth first: the others verify its tokens).
    package static let services: [Service] = [auth, posts, media, social, market, chat]

    package static var consumers: [Consumer] { services.flatMap(\.consumers) }

    package static func service(named name: String) -> Service? {
        services.first { $0.name == name }
    }

    /// The service whose schema records `group`'s processed events.
    package static func owner(ofConsumer group: String) -> Service? {
        services.first { $0.consumers.contains { $0.group == group } }
    }
}

/// The consumer groups of the system's projections, as the services name them on their own schema.
package enum ConsumerGroup {
    package static let posts = SystemCatalog.posts.consumers[0].group
    package static let social = SystemCatalog.social.consumers[0].group
    package static let market = SystemCatalog.market.consumers[0].group
    package static let media = SystemCatalog.media.consumers[0].group
    package static let chat = SystemCatalog.chat.consumers[0].group
}
