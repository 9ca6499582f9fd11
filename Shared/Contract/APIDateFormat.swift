import Foundation

/// Dates on the wire: ISO-8601 UTC with milliseconds, `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` (API conventions §1.4).
package enum APIDateFormat {
    static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    package static func string(from date: Date) -> String {
        date.formatted(style)
    }

    package static func date(from string: String) -> Date? {
        if let date = try? style.parse(string) { return date }
        return try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(string)
    }

    @Sendable package static func encode(_ date: Date, _ encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(string(from: date))
    }

    @Sendable package static func decode(_ decoder: any Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = date(from: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an ISO-8601 date")
        }
        return date
    }
}
