import Foundation
import PostgresNIO

// The outbox's statements, prepared once per connection (decision 0023): a statement sent as a query is parsed,
// analysed and planned on every execution, which cost PostgreSQL about a sixth of its CPU per created post. A
// prepared statement's name and text are fixed per type, so the table is named unqualified: the connections these
// run on find the service's schema first on their search path (`ServicePlatform` and the tests' `TestPlatform` set it).

/// One event into the outbox, after the aggregate's advisory lock (so ids follow commit order per aggregate), with the
/// relay's wake-up (delivered at commit). Returns one row.
struct AppendOutboxRow: PostgresPreparedStatement {
    typealias Row = Bool
    static let name = "sns_outbox_append"
    static let sql = """
        WITH aggregate_lock AS (SELECT pg_advisory_xact_lock($1, hashtext($2))),
        appended AS (
            INSERT INTO outbox (event_id, topic, partition_key, event_type, payload, headers)
            SELECT $3, $4, $5, $6, $7::jsonb, $8::jsonb
            FROM aggregate_lock
            RETURNING 1)
        SELECT true FROM appended, pg_notify($9, '')
        """
    static let bindingDataTypes = OutboxRow.bindingDataTypes

    let row: OutboxRow

    init(_ row: OutboxRow) { self.row = row }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 9)
        row.append(to: &bindings)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool { true }
}

/// The relay lock, taken for the relay's session (`OutboxRelay`): true when this session holds it now. Session-level:
/// it is held until the session ends, so one replica relays until it stops or fails.
struct TakeRelayLock: PostgresPreparedStatement {
    typealias Row = Bool
    static let name = "sns_outbox_relay_lock"
    static let sql = "SELECT pg_try_advisory_lock($1, hashtext($2))"
    static let bindingDataTypes: [PostgresDataType] = [.int4, .text]

    let lockClass: Int32
    let lockKey: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(lockClass)
        bindings.append(lockKey)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool { try row.decode(Bool.self) }
}

/// The relay's one statement per batch: marks the rows of the previous batch, which the broker acknowledged,
/// published, and reads the pending rows in id order. The read leaves the marked rows out by id: a statement does not
/// see its own update. An empty `published` marks nothing; a `limit` of 0 reads nothing.
struct MarkPublishedAndReadOutbox: PostgresPreparedStatement {
    typealias Row = PendingOutboxRow
    static let name = "sns_outbox_mark_and_read"
    static let sql = """
        WITH marked AS (
            UPDATE outbox SET published_at = clock_timestamp() WHERE id = ANY($1) RETURNING id)
        SELECT id, topic, partition_key, payload::text, headers::text,
               extract(epoch FROM clock_timestamp() - created_at)::float8
        FROM outbox
        WHERE published_at IS NULL AND id <> ALL($1)
        ORDER BY id LIMIT $2
        """
    static let bindingDataTypes: [PostgresDataType] = [.int8Array, .int8]

    let published: [Int64]
    let limit: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(published)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> PendingOutboxRow {
        let (id, topic, key, payload, headers, age) = try row.decode(
            (Int64, String, String, String, String, Double).self)
        return PendingOutboxRow(id: id, topic: topic, partitionKey: key, payload: payload, headers: headers, age: age)
    }
}

/// One pending outbox row as the relay reads it; `age` in seconds since the row was written.
struct PendingOutboxRow: Sendable {
    var id: Int64
    var topic: String
    var partitionKey: String
    var payload: String
    var headers: String
    var age: Double
}
