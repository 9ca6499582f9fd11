import Foundation
import Logging
import PostgresNIO

/// An event's whole effect as one prepared statement that can also be run *inside* the consumer's processed-event
/// record (`RecordedEffect`): the record, the read-your-writes announcement and the effect are then one statement in
/// PostgreSQL's implicit transaction — one round trip where the transaction path takes four (`BEGIN`, record, effect,
/// `COMMIT`). With writes trickling in, consumers see one event at a time, and each round trip is a switch into a
/// PostgreSQL backend and back into the service (decision 0015, amended).
///
/// A conforming statement writes its SQL once, as `parts(onlyIf:)`: the standalone statement passes `"true"`, the
/// recorded one a condition that holds only when the event is new. Every write of the effect must be guarded by it.
/// Parameters are numbered from `$1`; the recorded statement renumbers them after the record's own.
package protocol OneStatementEffect: PostgresPreparedStatement where Row == Bool {
    /// The statement's common table expressions and final data-modifying statement, each write guarded by
    /// `condition` (an SQL boolean expression).
    static func parts(onlyIf condition: String) -> StatementParts
    /// `RecordedEffect<Self>.sql(for: parts(onlyIf:))`, kept in a stored static of the conforming type (a generic
    /// type cannot store one, and PostgresNIO reads a statement's SQL on every execution).
    static var recordedSQL: String { get }
    /// The effect's bindings, appended after the record's.
    func appendBindings(to bindings: inout PostgresBindings) throws
}

extension OneStatementEffect {
    package func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings()
        try appendBindings(to: &bindings)
        return bindings
    }

    package func decodeRow(_ row: PostgresRow) throws -> Bool { true }
}

/// A statement as common table expressions (each `name AS (…)`) and a final statement.
package struct StatementParts: Sendable {
    package var ctes: [String]
    package var statement: String

    package init(ctes: [String] = [], _ statement: String) {
        self.ctes = ctes
        self.statement = statement
    }

    /// The statement on its own.
    package var standalone: String {
        ctes.isEmpty ? statement : "WITH " + ctes.joined(separator: ",\n") + "\n" + statement
    }

    /// Every parameter `$n` as `$(n + offset)`. (Statements here hold no dollar-quoted text.)
    func shiftingParameters(by offset: Int) -> StatementParts {
        StatementParts(ctes: ctes.map { Self.shift($0, by: offset) }, Self.shift(statement, by: offset))
    }

    static func shift(_ sql: String, by offset: Int) -> String {
        var result = ""
        var digits = ""
        var inParameter = false
        func flush() {
            if inParameter { result += "$" + (Int(digits).map { String($0 + offset) } ?? "") }
            digits = ""
            inParameter = false
        }
        for character in sql {
            if inParameter, character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            flush()
            if character == "$" { inParameter = true } else { result.append(character) }
        }
        flush()
        return result
    }
}

/// One event's processed-event record, its read-your-writes announcements and its handler's effect in one statement;
/// the effect applies only when the record is new. Returns the event id when it was new, nil for a duplicate
/// (announced all the same: its effect is there).
package struct RecordedEffect<Effect: OneStatementEffect>: PostgresPreparedStatement {
    package typealias Row = UUID?
    package static var name: String { Effect.name + "_recorded" }
    package static var sql: String { Effect.recordedSQL }
    package static var bindingDataTypes: [PostgresDataType] {
        RecordProcessedEvents.bindingDataTypes + Effect.bindingDataTypes
    }
    /// True only when the record is new (the effect's guard).
    static var isNew: String { "EXISTS (SELECT 1 FROM sns_recorded)" }

    /// The recorded form of an effect's statement (for `OneStatementEffect.recordedSQL`).
    package static func sql(for parts: (String) -> StatementParts) -> String {
        let effect = parts(isNew).shiftingParameters(by: RecordProcessedEvents.bindingDataTypes.count)
        let ctes =
            [
                "sns_recorded AS (\(RecordProcessedEvents.insert))",
                "sns_announced AS (\(RecordProcessedEvents.announce))",
            ]
            + effect.ctes + ["sns_effect AS (\(effect.statement))"]
        return "WITH " + ctes.joined(separator: ",\n")
            + "\nSELECT r.event_id FROM sns_announced LEFT JOIN sns_recorded r ON true"
    }

    let record: RecordProcessedEvents
    let effect: Effect

    package func makeBindings() throws -> PostgresBindings {
        var bindings = try record.makeBindings()
        try effect.appendBindings(to: &bindings)
        return bindings
    }

    package func decodeRow(_ row: PostgresRow) throws -> UUID? { try row.decode(UUID?.self) }

    /// Records `event` for `consumer`, announces it, and applies `effect` if the event is new, in one statement on
    /// `connection` (outside any transaction: the statement is its own). Returns whether the event was new.
    package static func apply(
        _ effect: Effect, consumer: String, event: IncomingEvent, announcements: [Announcement],
        on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        let statement = RecordedEffect(
            record: RecordProcessedEvents(consumer: consumer, events: [event], announcements: announcements),
            effect: effect)
        var isNew = false
        for try await id in try await connection.execute(statement, logger: logger) where id != nil { isNew = true }
        return isNew
    }
}
