import Hummingbird
import HummingbirdCore
import Logging
import PostgresNIO
import SNSKafka
import ServiceLifecycle

/// Everything a service is built from: database pool, migrations, Kafka producer, outbox and its relay,
/// token verification, readiness, the standard middleware chain. A service's `buildApplication` makes one,
/// adds its routes and consumers, and calls `makeApplication`.
package struct ServicePlatform: Sendable {
    package let configuration: PlatformConfiguration
    package let logger: Logger
    package let schema: SQLIdentifier
    /// The service's shared pool (everything not tied to a request's event loop); replaced by a fresh one when stuck
    /// after an outage (`DatabasePool`).
    package let postgres: DatabasePool
    /// The pools for requests' statements: one per event loop when the service asked and the configuration allows
    /// (`LoopLocalPools.current`), else `postgres`.
    package let requestPools: LoopLocalPools
    package let producer: KafkaProducer
    package let outbox: Outbox
    package let barrier: ProjectionBarrier
    /// The process's socket for read-your-writes announcements by datagram, when configured
    /// (`SNS_ANNOUNCE_HOST`, decision 0050).
    package let announcements: AnnouncementSocket?
    package let relay: OutboxRelay
    /// Deletes old published outbox rows and processed-event records (decision 0038).
    package let retention: RetentionPruner
    /// The process's one `LISTEN` connection (the relay's wake-ups, the barrier's announcements).
    package let notifications: NotificationListener
    package let verifier: AccessTokenVerifier
    package let migrator: Migrator
    package let startGate: StartGate
    /// Present when configured: requests fail fast with 503 while the database is down.
    package let databaseWatch: DatabaseWatch?
    /// Announced by the database watch when the database is back: ends the pauses of the `LISTEN` connection and
    /// of the consumers at once.
    package let databaseRecovery: DatabaseRecovery
    /// The consumers `makeApplication` was given, for `/ready`'s `consumers`.
    package let consumerRoster = ConsumerRoster()
    /// SIGTERM's drain and bound (from the configuration).
    package var drain: ShutdownDrain { configuration.drain }

    /// - Parameter migrations: the service's own migrations (versions ≥ 100); the platform's tables
    ///   (outbox, processed events) are added in front.
    /// - Parameter genericPlans: every connection plans each prepared statement once, generically
    ///   (`plan_cache_mode = force_generic_plan`), for a service whose statements are written and tested for generic
    ///   plans (posts, decision 0022). Otherwise PostgreSQL may re-plan a named statement on every execution when
    ///   a plan for the bound values looks cheaper, which costs more than the execution of a page.
    /// - Parameter requestPoolsPerLoop: the service's requests use `requestPools` (posts): a pool per event loop
    ///   is made when the configuration allows it (`SNS_DATABASE_POOLS`, decision 0025); otherwise `requestPools` is
    ///   only the shared pool.
    package init(
        configuration: PlatformConfiguration, schema: String, migrations: [Migration], genericPlans: Bool = false,
        requestPoolsPerLoop: Bool = false, logger: Logger
    ) async throws {
        _ = Observability.registry
        var logger = logger
        logger[metadataKey: "service"] = .string(configuration.serviceName)
        let schema = try SQLIdentifier(schema)
        self.configuration = configuration
        self.logger = logger
        self.schema = schema
        // The schema is a setting: every connection of the service's pool looks names up in it first (then in
        // public, for extensions such as pg_trgm), so statements name their tables unqualified and a test can run
        // the service on a schema of its own. Migrations and the platform's tables qualify names with it.
        var database = configuration.database.clientConfiguration
        database.options.additionalStartupParameters.append(("search_path", "\"\(schema.name)\", public"))
        if genericPlans {
            database.options.additionalStartupParameters.append(("plan_cache_mode", "force_generic_plan"))
        }
        self.postgres = DatabasePool(name: "shared", logger: logger) { [database, logger] in
            PostgresClient(configuration: database, backgroundLogger: logger)
        }
        self.requestPools = LoopLocalPools(
            shared: postgres, configuration: database,
            perLoop: requestPoolsPerLoop && configuration.databasePoolPerEventLoop, logger: logger)
        self.producer = try KafkaProducer(
            configuration: Self.kafkaConfiguration(configuration, role: "producer"), logger: logger)
        self.databaseRecovery = DatabaseRecovery()
        self.notifications = NotificationListener(
            database: configuration.database, logger: logger, recovery: databaseRecovery)
        if let host = configuration.announceHost {
            self.announcements = try await AnnouncementSocket.bind(host: host, logger: logger)
        } else {
            self.announcements = nil
        }
        self.barrier = ProjectionBarrier(
            writer: configuration.serviceName, timeout: configuration.readYourWritesTimeout,
            notifications: notifications, announcements: announcements, logger: logger)
        self.outbox = Outbox(schema: schema, producerName: configuration.serviceName, barrier: barrier)
        self.startGate = StartGate()
        let (watchedPools, recovery) = ([postgres] + requestPools.perLoopPools, databaseRecovery)
        self.databaseWatch = configuration.databaseWatchInterval.map {
            DatabaseWatch(
                database: configuration.database, interval: $0, logger: logger, pools: watchedPools,
                recovery: recovery)
        }
        self.relay = OutboxRelay(
            outbox: outbox, client: postgres, producer: producer, notifications: notifications, logger: logger,
            pollInterval: configuration.outboxPollInterval, gather: configuration.outboxGather, startGate: startGate)
        self.retention = RetentionPruner(
            schema: schema, client: postgres, policy: configuration.retention, logger: logger, startGate: startGate)
        self.verifier = try await AccessTokenVerifier(publicKeyPEM: configuration.jwtPublicKeyPEM)
        self.migrator = Migrator(schema: schema, migrations: PlatformMigrations.all(schema: schema) + migrations)
    }

    package static func kafkaConfiguration(_ configuration: PlatformConfiguration, role: String) -> KafkaConfiguration {
        KafkaConfiguration(
            bootstrapServers: configuration.kafkaBrokers,
            clientId: "\(configuration.serviceName)-\(role)",
            properties: configuration.kafkaProperties
        )
    }

    /// A router with the standard front (`EdgeMiddleware`: request id, `SesacKey`, `ProductId`, database watch, error
    /// mapping, drain, metrics, access log), plus `/health`, `/ready`, `/metrics`. Add routes after this call
    /// (middleware applies to later routes).
    /// - Parameter sesacKeyExemptPaths: routes called by third parties that cannot send `SesacKey` (the payment
    ///   gateway's webhook), on top of the operational endpoints.
    package func makeRouter(sesacKeyExemptPaths: Set<String> = []) -> Router<APIRequestContext> {
        let router = Router(context: APIRequestContext.self)
        router.add(
            middleware: EdgeMiddleware(
                drain: drain,
                sesacKey: SesacKeyCheck(
                    apiKey: configuration.apiKey,
                    exemptPaths: SesacKeyCheck.operationalPaths.union(sesacKeyExemptPaths)),
                productId: ProductIdCheck(registered: configuration.productIds),
                databaseWatch: databaseWatch))
        router.addOperationalRoutes(
            readiness: ReadinessCheck(
                startGate: startGate, drain: drain, postgres: postgres, producer: producer,
                databaseWatch: databaseWatch, consumers: consumerRoster, logger: logger))
        return router
    }

    /// An idempotent consumer in group `name` that stores processed events in this service's schema.
    package func makeConsumer(
        name: String, topics: [String], handler: some EventHandler, properties: [String: String] = [:]
    ) throws -> IdempotentConsumer {
        var kafka = Self.kafkaConfiguration(configuration, role: name)
        kafka.properties.merge(properties) { _, new in new }
        return try IdempotentConsumer(
            name: name, topics: topics, kafka: kafka, client: postgres, producer: producer,
            handler: handler,
            options: .init(
                maxAttempts: configuration.consumerMaxAttempts, retryBase: configuration.consumerRetryBase,
                batchSize: configuration.consumerBatchSize),
            logger: logger, startGate: startGate, recovery: databaseRecovery, announcer: announcements)
    }

    /// The consumer that the system catalog lists for `service`. Replicas share one consumer group per schema: on
    /// the service's own schema that is the catalog's group; a test's private schema gets a group of its own, so it
    /// never takes partitions (and events) away from the stack's process.
    package func makeConsumer(
        _ consumer: SystemCatalog.Consumer, of service: SystemCatalog.Service,
        handler: some EventHandler, properties: [String: String] = [:]
    ) throws -> IdempotentConsumer {
        try makeConsumer(
            name: service.group(consumer, onSchema: schema.name), topics: consumer.topics,
            handler: handler, properties: properties)
    }

    /// The application: HTTP server plus background services. Shutdown (SIGTERM) runs in reverse order:
    /// stop accepting and finish in-flight requests, stop consumers (leave the group), stop the relay,
    /// flush the producer, close the database pool.
    /// `server`: HTTP/1 by default; chat passes one that also upgrades its Socket.IO path to WebSocket.
    package func makeApplication(
        router: Router<APIRequestContext>, consumers: [IdempotentConsumer] = [], extraServices: [any Service] = [],
        server: HTTPServerBuilder = .http1()
    ) -> some ApplicationProtocol {
        var app = Application(
            router: router,
            server: server,
            configuration: .init(
                address: .hostname(configuration.httpHost, port: configuration.httpPort), serverName: nil),
            // The pool's run() was seen not to return after shutdown: bounded, so SIGTERM always ends the process.
            services: [
                BoundedShutdownService(postgres, name: "postgres pool", logger: logger), producer, notifications,
                relay, retention,
            ] + (announcements.map { [$0] } ?? [])
                + requestPools.perLoopPools.map { [logger] in
                    BoundedShutdownService($0, name: "postgres pool of an event loop", logger: logger)
                }
                + (databaseWatch.map { [$0] } ?? []) + consumers + extraServices,
            onServerRunning: { [drain] listener in drain.attach(listener: listener) },
            logger: logger.quietingExpectedShutdownErrors
        )
        for consumer in consumers { drain.onDrain { await consumer.leaveGroup() } }
        consumerRoster.register(consumers)
        let migrator = self.migrator
        let postgres = self.postgres
        let startGate = self.startGate
        let logger = self.logger
        app.beforeServerStarts {
            let applied = try await migrator.migrate(client: postgres.client, logger: logger)
            logger.info("database ready", metadata: ["schema": "\(migrator.schema.name)", "applied": "\(applied)"])
            startGate.open()
        }
        return app
    }
}
