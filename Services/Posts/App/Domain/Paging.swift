import Foundation
import Hummingbird
import HummingbirdCore
import SNSPlatform

/// Cursor paging (API conventions §6, §10.4). A cursor is an opaque string naming a position in a total order
/// (a `seq` identity value): the next page holds items strictly after it, so nothing is skipped or
/// repeated while others write. `next` missing or `""` is the first page; `next_cursor` `"0"` is the end.
struct Page: Sendable {
    static let defaultLimit = 10
    /// What the apps that never page ask for (one request of `limit=1000` or more, decision 0042), still a bound.
    static let maxLimit = 1000

    /// Items strictly older than this position; `Int64.max` on the first page, 0 past the end.
    let before: Int64
    let limit: Int

    /// `next=0`: the client asks again after the end (some fall back to "0"); an empty page, not an error.
    var isPastEnd: Bool { before <= 0 }

    /// From the request's query, parsed once by the caller (Hummingbird parses it again on every access).
    init(query: FlatDictionary<Substring, Substring>) throws {
        self.limit = try Self.parseLimit(query["limit"].map(String.init))
        self.before = try Self.parseCursor(query["next"].map(String.init))
    }

    init(before: Int64 = .max, limit: Int = Page.defaultLimit) {
        self.before = before
        self.limit = limit
    }

    static func parseLimit(_ raw: String?) throws -> Int {
        // Digits only (what every app sends): no trimming, which costs more than the rest of a page's parsing.
        if let raw, !raw.isEmpty, raw.utf8.count < 19, raw.utf8.allSatisfy({ (48...57).contains($0) }),
            let value = Int(raw)
        {
            guard value >= 1 else {
                throw APIError.badRequest("limit 값이 올바르지 않습니다. (limit must be a positive integer)")
            }
            return min(value, maxLimit)
        }
        guard let raw = raw?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return defaultLimit }
        guard !raw.isEmpty, raw.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw APIError.badRequest("limit 값이 올바르지 않습니다. (limit must be a positive integer)")
        }
        // more digits than an Int holds: clamped like any large value
        guard let value = Int(raw) else { return maxLimit }
        guard value >= 1 else {
            throw APIError.badRequest("limit 값이 올바르지 않습니다. (limit must be a positive integer)")
        }
        return min(value, maxLimit)
    }

    static func parseCursor(_ raw: String?) throws -> Int64 {
        guard let raw, !raw.isEmpty else { return .max }
        if raw == Cursor.end { return 0 }
        guard let position = Cursor.decode(raw) else {
            throw APIError.badRequest("next 값이 올바르지 않습니다. (invalid cursor)")
        }
        return position
    }

    /// `next_cursor` for a page fetched with `limit + 1` rows: the last returned item's position, or `"0"`.
    func nextCursor(fetched: Int, lastPosition: Int64?) -> String {
        guard fetched > limit, let lastPosition else { return Cursor.end }
        return Cursor.encode(lastPosition)
    }
}

/// The cursor's wire form: base64url of `"c1:<position>"`. Opaque to clients; versioned for us.
enum Cursor {
    static let end = "0"

    static func encode(_ position: Int64) -> String {
        Data("c1:\(position)".utf8).base64URLEncoded()
    }

    static func decode(_ cursor: String) -> Int64? {
        guard cursor.utf8.count <= 64 else { return nil }
        guard let data = Data(base64URLEncoded: cursor), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("c1:"), let position = Int64(text.dropFirst(3)), position > 0
        else { return nil }
        return position
    }
}
