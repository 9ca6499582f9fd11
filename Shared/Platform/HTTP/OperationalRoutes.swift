import HTTPTypes
import Hummingbird
import Logging
import PostgresNIO
import SNSKafka

/// `/health` (the process is alive), `/ready` (start-up done, database and broker reachable) and
/// `/metrics` (Prometheus text format). Not behind `SesacKey`; the gateway does not route them.
package struct ReadinessCheck: Sendable {
    let startGate: StartGate
    let postgres: PostgresClient
    let producer: KafkaProducer
    let logger: Logger

    package init(startGate: StartGate, postgres: PostgresClient, producer: KafkaProducer, logger: Logger) {
        self.startGate = startGate
        self.postgres = postgres
        self.producer = producer
        self.logger = logger
    }

    package struct Report: Codable, Sendable {
        package var ready: Bool
        package var started: Bool
        package var database: Bool
        package var broker: Bool
    }

    package func check() async -> Report {
        let started = startGate.isOpen
        async let database: Bool = {
            do {
                try await postgres.query("SELECT 1", logger: logger)
                return true
            } catch {
                logger.warning("readiness: database unreachable", metadata: ["error": "\(error)"])
                return false
            }
        }()
        async let broker: Bool = producer.isBrokerReachable(timeout: .seconds(2))
        let (db, kafka) = await (database, broker)
        return Report(ready: started && db && kafka, started: started, database: db, broker: kafka)
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
