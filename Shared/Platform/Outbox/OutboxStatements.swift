import Foundation
import PostgresNIO

// The outbox's statements, prepared once per connection (decision 0023): a statement sent as a query is parsed,
// analysed and planned on every execution, which cost PostgreSQL about a sixth of its CPU per created post. A
// prepared statement's name and text are fixed per type, so the table is named unqualified: the connections these
// run on find the service's schema first on their search path (`ServicePlatform` and the tests' `TestPlatform` set it).

/// One event into the outbox, after the aggregate's advisory lock (so ids follow commit order per aggregate), with the
/// relay's wake-up (delivered at commit) unless the channel is "" (decision 0036). Returns one row.
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
        SELECT true FROM appended LEFT JOIN LATERAL (SELECT pg_notify($9, '') WHERE $9 <> '') AS notified ON true
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

/// The relay's lock and the pending rows in one statement: rows only when the lock was taken; one row without an id
/// otherwise (see `OutboxRelay.publishBatch`).
struct ReadPendingOutbox: PostgresPreparedStatement {
    typealias Row = (locked: Bool, pending: PendingOutboxRow?)
    static let name = "sns_outbox_pending"
    static let sql = """
        WITH relay_lock AS MATERIALIZED (
            SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS locked)
        SELECT l.locked, o.id, o.topic, o.partition_key, o.payload::text, o.headers::text,
               extract(epoch FROM clock_timestamp() - o.created_at)::float8
        FROM relay_lock l
        LEFT JOIN LATERAL (
            SELECT id, topic, partition_key, payload, headers, created_at
            FROM outbox
            WHERE l.locked AND published_at IS NULL ORDER BY id LIMIT $3) o ON true
        ORDER BY o.id
        """
    static let bindingDataTypes: [PostgresDataType] = [.int4, .text, .int8]

    let lockClass: Int32
    let lockKey: String
    let limit: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(lockClass)
        bindings.append(lockKey)
        bindings.append(limit)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (locked, id, topic, key, payload, headers, age) = try row.decode(
            (Bool, Int64?, String?, String?, String?, String?, Double?).self)
        guard let id, let topic, let key, let payload, let headers, let age else { return (locked, nil) }
        return (
            locked,
            PendingOutboxRow(id: id, topic: topic, partitionKey: key, payload: payload, headers: headers, age: age)
        )
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

/// Marks relayed rows published at the broker's acknowledgement. Returns no rows; iterate them to await its end
/// (PostgresNIO's command-tag variant may answer before the statement completed and then traps).
struct MarkOutboxPublished: PostgresPreparedStatement {
    typealias Row = Bool
    static let name = "sns_outbox_published"
    static let sql = "UPDATE outbox SET published_at = clock_timestamp() WHERE id = ANY($1)"
    static let bindingDataTypes: [PostgresDataType] = [.int8Array]

    let ids: [Int64]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(ids)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Bool { true }
}
