import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// `outbox status`: per service, how many outbox rows are pending and published, and how old the oldest pending
/// row is (a relay that is stuck or a broker that is down shows as a growing age).
package struct OutboxStatus: Codable, Sendable, Equatable {
    package var service: String
    package var schema: String
    /// False when the service's schema or outbox does not exist yet (the service never started).
    package var migrated: Bool
    package var pending: Int
    package var published: Int
    package var oldestPendingAgeSeconds: Double?
    package var lastPublishedAt: Date?

    enum CodingKeys: String, CodingKey {
        case service, schema, migrated, pending, published
        case oldestPendingAgeSeconds = "oldest_pending_age_seconds", lastPublishedAt = "last_published_at"
    }
}

package enum OutboxInspector {
    package static func status(of services: [ServiceCatalog.Service], client: PostgresClient, logger: Logger)
        async throws -> [OutboxStatus]
    {
        var result: [OutboxStatus] = []
        for service in services {
            let schema = try SQLIdentifier(service.schema)
            var status = OutboxStatus(
                service: service.name, schema: service.schema, migrated: false, pending: 0, published: 0)
            guard try await tableExists(schema: schema.name, table: "outbox", client: client, logger: logger) else {
                result.append(status)
                continue
            }
            status.migrated = true
            let rows = try await client.query(
                """
                SELECT count(*) FILTER (WHERE published_at IS NULL)::int,
                       count(*) FILTER (WHERE published_at IS NOT NULL)::int,
                       extract(epoch FROM now() - min(created_at) FILTER (WHERE published_at IS NULL))::float8,
                       max(published_at)
                FROM \(table: schema, "outbox")
                """, logger: logger)
            for try await (pending, published, age, last) in rows.decode((Int, Int, Double?, Date?).self) {
                status.pending = pending
                status.published = published
                status.oldestPendingAgeSeconds = age
                status.lastPublishedAt = last
            }
            result.append(status)
        }
        return result
    }

    static func tableExists(schema: String, table: String, client: PostgresClient, logger: Logger) async throws -> Bool
    {
        let qualified = "\"\(schema)\".\"\(table)\""
        let rows = try await client.query("SELECT to_regclass(\(qualified)) IS NOT NULL", logger: logger)
        for try await exists in rows.decode(Bool.self) { return exists }
        return false
    }
}
