// swift-tools-version:6.1
// The LSLP-compatible SNS backend: one package, one library + one thin executable per service.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "sns-backend",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "auth", targets: ["AuthServer"]),
        .executable(name: "media", targets: ["MediaServer"]),
        .executable(name: "posts", targets: ["PostsServer"]),
        .executable(name: "social", targets: ["SocialServer"]),
        .executable(name: "market", targets: ["MarketServer"]),
        .executable(name: "chat", targets: ["ChatServer"]),
        .executable(name: "sns-portone-test-server", targets: ["PortOneTestServerMain"]),
        .executable(name: "sns-idp-test-server", targets: ["IdentityProviderTestServerMain"]),
        .executable(name: "sns-dev-broker", targets: ["DevBroker"]),
        .executable(name: "sns-admin", targets: ["AdminMain"]),
        .executable(name: "sns-bench", targets: ["BenchTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        // Test-only: DeploymentTests read docker-compose.yml. No service target depends on it.
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
    ],
    targets: [
        // librdkafka from Debian's librdkafka-dev, found through pkg-config.
        .systemLibrary(
            name: "CRDKafka",
            path: "Shared/CRDKafka",
            pkgConfig: "rdkafka",
            providers: [.apt(["librdkafka-dev"])]
        ),
        // Thin Swift 6 wrapper: awaited producer, consumer-group consumer, lifecycle services.
        .target(
            name: "SNSKafka",
            dependencies: [
                "CRDKafka",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Shared/Kafka",
            swiftSettings: swiftSettings
        ),
        // The system's contract between its parts, Foundation only: event envelope, topics, event types and payloads,
        // the wire date format, and the system catalog (services, schemas, consumer groups, read models).
        .target(
            name: "SNSContract",
            path: "Shared/Contract",
            swiftSettings: swiftSettings
        ),
        // What every service shares: configuration, HTTP conventions, PostgreSQL, migrations,
        // events, outbox relay, idempotent consumers, JWT verification, health/readiness/metrics.
        .target(
            name: "SNSPlatform",
            dependencies: [
                "SNSContract",
                "SNSKafka",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // ErrorMiddleware tells a client that went away mid-request (HTTPParserError) from a failure.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                // Service-to-service calls (InternalServiceClient).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Shared/Platform",
            swiftSettings: swiftSettings
        ),
        // Auth service: accounts, credentials, refresh tokens, JWKS.
        .target(
            name: "AuthService",
            dependencies: [
                "SNSPlatform",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                // Federated sign-in: provider keys and Kakao's API over HTTP, RS256 ID tokens.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Services/Auth/App",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "AuthServer",
            dependencies: ["AuthService"],
            path: "Services/Auth/Main",
            swiftSettings: swiftSettings
        ),
        // Media service: uploads (streamed multipart), authenticated downloads, garbage collection.
        .target(
            name: "MediaService",
            dependencies: [
                "SNSPlatform",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ],
            path: "Services/Media/App",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MediaServer",
            dependencies: ["MediaService"],
            path: "Services/Media/Main",
            swiftSettings: swiftSettings
        ),
        // Posts & feed service: posts, comments, likes, hashtags, feeds, read models of users and follows.
        .target(
            name: "PostsService",
            dependencies: [
                "SNSPlatform",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // G0 (2023) posts carry their images inline; posts forwards them to media.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Services/Posts/App",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "PostsServer",
            dependencies: ["PostsService"],
            path: "Services/Posts/Main",
            swiftSettings: swiftSettings
        ),
        // Social graph service: follows, profiles (read model + the public profile edit), user search, rankings.
        .target(
            name: "SocialService",
            dependencies: [
                "SNSPlatform",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Services/Social/App",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "SocialServer",
            dependencies: ["SocialService"],
            path: "Services/Social/Main",
            swiftSettings: swiftSettings
        ),
        // Market & payment verification service: product price read model, payments verified with PortOne.
        .target(
            name: "MarketService",
            dependencies: [
                "SNSPlatform",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Services/Market/App",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MarketServer",
            dependencies: ["MarketService"],
            path: "Services/Market/Main",
            swiftSettings: swiftSettings
        ),
        // Chat: one-to-one rooms and messages, a projection of users.
        .target(
            name: "ChatService",
            dependencies: [
                "SNSPlatform", "SNSKafka",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSCompression", package: "hummingbird-websocket"),
            ],
            path: "Services/Chat/App",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ChatServer",
            dependencies: ["ChatService"],
            path: "Services/Chat/Main",
            swiftSettings: swiftSettings
        ),
        // A PortOne (iamport REST API v1) compatible test server: tokens, payment lookups, cancels, webhook
        // delivery, with payments and faults configured by tests (in process) or over its sandbox admin API.
        // Ends an in-process server's task within a bound (the test servers and tests' own receivers share it).
        .target(
            name: "InProcessServer",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tools/InProcessServer",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PortOneTestServer",
            dependencies: [
                "InProcessServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/PortOneTestServer/Server",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "PortOneTestServerMain",
            dependencies: [
                "PortOneTestServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/PortOneTestServer/Main",
            swiftSettings: swiftSettings
        ),
        // An identity-provider test server: Firebase and Apple key sets (JWKS, with rotation) and RS256 ID tokens,
        // a Kakao-like user API, and a sandbox API that issues tokens and arms faults (in process or as a process).
        .target(
            name: "IdentityProviderTestServer",
            dependencies: [
                "InProcessServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tools/IdentityProviderTestServer/Server",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "IdentityProviderTestServerMain",
            dependencies: [
                "IdentityProviderTestServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/IdentityProviderTestServer/Main",
            swiftSettings: swiftSettings
        ),
        // Development Kafka-protocol broker: librdkafka's in-memory mock cluster as a process.
        .executableTarget(
            name: "DevBroker",
            dependencies: [
                "CRDKafka", "SNSKafka", "SNSContract",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tools/DevBroker",
            swiftSettings: swiftSettings
        ),
        // The operator's tool for the event pipeline: outbox status, republish, topics, tail, replay, dead letters.
        .target(
            name: "SNSAdmin",
            dependencies: [
                "SNSPlatform", "SNSKafka",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/Admin/Library",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "AdminMain",
            dependencies: [
                "SNSAdmin",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/Admin/Main",
            swiftSettings: swiftSettings
        ),
        // Benchmark tool (bench/README.md): the ceiling server, the graph seeder and the constant-rate load generator.
        .executableTarget(
            name: "BenchTool",
            dependencies: [
                "SNSPlatform",  // the services' executor switch and per-loop pools, so the ceiling is built as they are
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tools/Bench",
            swiftSettings: swiftSettings
        ),
        // Shared test helpers: environment (database, broker, gateway), HTTP client, fixtures.
        .target(
            name: "SNSTestSupport",
            dependencies: [
                "SNSPlatform",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        // The load generator's HTTP reply parser (the rest of the benchmark tool prints numbers and is not tested).
        .testTarget(
            name: "BenchToolTests",
            dependencies: ["BenchTool"],
            path: "Tests/BenchToolTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DevBrokerTests",
            dependencies: ["DevBroker", .product(name: "NIOCore", package: "swift-nio")],
            path: "Tests/DevBrokerTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "KafkaTests",
            dependencies: ["SNSKafka", "SNSTestSupport"],
            path: "Tests/KafkaTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PlatformTests",
            dependencies: ["SNSPlatform", "SNSTestSupport", .product(name: "MultipartKit", package: "multipart-kit")],
            path: "Tests/PlatformTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthTests",
            dependencies: [
                "AuthService", "IdentityProviderTestServer", "SNSTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/AuthTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediaTests",
            dependencies: [
                "MediaService", "SNSTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/MediaTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PostsTests",
            dependencies: [
                "PostsService", "SNSTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/PostsTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SocialTests",
            dependencies: [
                "SocialService", "SNSTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/SocialTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MarketTests",
            dependencies: [
                "MarketService", "PortOneTestServer", "SNSTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/MarketTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChatTests",
            dependencies: [
                "ChatService", "SNSTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/ChatTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PortOneTestServerTests",
            dependencies: [
                "InProcessServer",
                "PortOneTestServer",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tests/PortOneTestServerTests",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdminTests",
            dependencies: ["SNSAdmin", "SNSKafka", "SNSTestSupport"],
            path: "Tests/AdminTests",
            swiftSettings: swiftSettings
        ),
        // The docker-compose deployment checked by reading its files (no Docker engine, database or broker needed):
        // compose structure, environment vs. what each service reads, Dockerfile vs. CI's build commands.
        .testTarget(
            name: "DeploymentTests",
            dependencies: [
                "SNSPlatform", "SNSAdmin", "SNSTestSupport",
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Tests/DeploymentTests",
            swiftSettings: swiftSettings
        ),
        // Client journeys through the running stack's gateway (started by ./sns test).
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["SNSPlatform", "SNSKafka", "SNSTestSupport"],
            path: "Tests/EndToEndTests",
            swiftSettings: swiftSettings
        ),
    ]
)
