import HTTPTypes
import Hummingbird
import Logging
import PostgresNIO
import SNSKafka
import Synchronization

/// `/health` (the process is alive), `/ready` (start-up done, database and broker reachable) and
/// `/metrics` (Prometheus text format). Not behind `SesacKey`; the gateway does not route them.
package struct ReadinessCheck: Sendable {
    let startGate: StartGate
    let drain: ShutdownDrain?
    let postgres: DatabasePool
    let producer: KafkaProducer
    /// While it says the database is down, requests are answered 503: the service is not ready either, whatever a
    /// probe of the pool says.
    let databaseWatch: DatabaseWatch?
    let consumers: ConsumerRoster?
    let logger: Logger

    package init(
        startGate: StartGate, drain: ShutdownDrain? = nil, postgres: DatabasePool, producer: KafkaProducer,
        databaseWatch: DatabaseWatch? = nil, consumers: ConsumerRoster? = nil, logger: Logger
    ) {
        self.startGate = startGate
        self.drain = drain
        self.postgres = postgres
        self.databaseWatch = databaseWatch
        self.producer = producer
        self.consumers = consumers
        self.logger = logger
    }

    package struct Report: Codable, Sendable {
        package var ready: Bool
        package var started: Bool
        package var database: Bool
        package var broker: Bool
        /// The replica is leaving (SIGTERM received): the gateway should stop sending it work.
        package var draining: Bool
        /// Every consumer of the replica holds its group's current assignment (none is joining or rebalancing;
        /// true without consumers). Not part of `ready`, which is about serving requests: a rolling restart waits for
        /// it before it stops the next replica, so that no replica leaves a group in the middle of a rebalance.
        package var consumers: Bool
    }

    /// Answers within `limit` (plus scheduling), whatever the database or the broker do: a probe that has not
    /// answered by then counts as unreachable. (While PostgreSQL is down, a query waits for a connection the pool
    /// keeps retrying; unbounded, `/ready` hung for as long as the outage lasted.)
    package func check(within limit: Duration = .milliseconds(1500)) async -> Report {
        let started = startGate.isOpen
        let draining = drain?.isDraining ?? false
        let (postgres, producer, logger) = (self.postgres, self.producer, self.logger)
        let watchSaysDown = databaseWatch?.isDown ?? false
        async let database: Bool =
            watchSaysDown
            ? false
            : Self.probe("database", within: limit, logger: logger) {
                try await postgres.query("SELECT 1", logger: logger)
                return true
            }
        async let broker: Bool = Self.probe("broker", within: limit, logger: logger) {
            await producer.isBrokerReachable(timeout: limit)
        }
        let (db, kafka) = await (database, broker)
        return Report(
            ready: started && db && kafka && !draining, started: started, database: db, broker: kafka,
            draining: draining, consumers: consumers?.allHoldTheirAssignment ?? true)
    }

    private static func probe(
        _ name: String, within limit: Duration, logger: Logger, _ work: @escaping @Sendable () async throws -> Bool
    ) async -> Bool {
        do {
            return try await withDeadline(limit, logger: logger, quiet: true, work)
        } catch {
            logger.warning("readiness: \(name) unreachable", metadata: ["error": "\(error)"])
            return false
        }
    }
}

/// The consumers of a process, known once the application is made (after its router, which holds `/ready`).
package final class ConsumerRoster: Sendable {
    private let consumers = Mutex<[IdempotentConsumer]>([])

    package init() {}

    package func register(_ list: [IdempotentConsumer]) {
        consumers.withLock { $0.append(contentsOf: list) }
    }

    /// Every registered consumer holds its group's current assignment (true for none).
    package var allHoldTheirAssignment: Bool {
        consumers.withLock { $0 }.allSatisfy(\.holdsAssignment)
    }
}

extension Router where Context == APIRequestContext {
    package func addOperationalRoutes(readiness: ReadinessCheck) {
        get("/health") { _, _ in try Response.json(["status": "ok"]) }
        get("/ready") { _, _ in
            let report = await readiness.check()
            return try Response.json(report, status: report.ready ? .ok : .serviceUnavailable)
        }
        get("/metrics") { _, _ in
            var buffer: [UInt8] = []
            Observability.registry.emit(into: &buffer)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer))
            )
        }
    }
}
