import PostgresNIO
import SNSPlatform

/// `MediaCatalog.replaceReferences`'s one statement, prepared once per connection (decision 0023; sent as a query it
/// was parsed and planned for every event). Tables are unqualified, found through the service's search path.
///
/// For every holder: the owner's withdrawal checked, share locks on the stored files it names (in path order, before
/// any reference is written), its stale references out and the new ones in. Run by a consumer together with the
/// event's record (`RecordedEffect`), the record comes first and a duplicate takes no locks (the guard is checked
/// before them).
struct ReplaceReferences: OneStatementEffect {
    static let name = "media_replace_references"
    static let sql = parts(onlyIf: "true").standalone
    static let recordedSQL = RecordedEffect<Self>.sql(for: parts)
    static func parts(onlyIf condition: String) -> StatementParts {
        StatementParts(
            ctes: [
                "input AS (SELECT * FROM unnest($1::text[], $2::text[]) AS i(id, owner_id))",
                """
                wanted AS (
                    SELECT i.id, i.owner_id, p.path
                    FROM unnest($3::text[], $4::text[]) AS p(id, path)
                    JOIN input i USING (id)
                    WHERE NOT EXISTS (SELECT 1 FROM withdrawn_users w WHERE w.user_id = i.owner_id)
                )
                """,
                """
                locked AS (
                    SELECT f.path FROM files f WHERE f.path IN (SELECT path FROM wanted)
                    ORDER BY f.path FOR SHARE
                )
                """,
                """
                removed AS (
                    DELETE FROM "references" r USING input i
                    WHERE r.holder_kind = $5 AND r.holder_id = i.id AND \(condition)
                      AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.id = r.holder_id AND w.path = r.path)
                )
                """,
            ],
            """
            INSERT INTO "references" (holder_kind, holder_id, path, owner_id)
            SELECT $5, w.id, w.path, w.owner_id FROM wanted w
            WHERE \(condition) AND (SELECT count(*) FROM locked) >= 0
            ON CONFLICT (holder_kind, holder_id, path) DO UPDATE SET owner_id = EXCLUDED.owner_id
            """)
    }
    static let bindingDataTypes: [PostgresDataType] = [.textArray, .textArray, .textArray, .textArray, .text]

    let holderIds: [String]
    let ownerIds: [String]
    /// (holder id, path) pairs, each holder's paths distinct and sorted.
    let pairIds: [String]
    let pairPaths: [String]
    let holderKind: String

    func appendBindings(to bindings: inout PostgresBindings) throws {
        bindings.append(holderIds)
        bindings.append(ownerIds)
        bindings.append(pairIds)
        bindings.append(pairPaths)
        bindings.append(holderKind)
    }
}
