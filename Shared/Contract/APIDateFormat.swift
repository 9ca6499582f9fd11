import Foundation

/// Dates on the wire: ISO-8601 UTC with milliseconds, `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` (API conventions §1.4).
package enum APIDateFormat {
    static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    static let secondsStyle = Date.ISO8601FormatStyle(timeZone: .gmt)

    /// The instant rounded to the nearest millisecond. (Formatting the `Date` itself truncates, and a `Date` read
    /// back from PostgreSQL's microseconds is often a hair below its millisecond: `.456` would print as `.455`.)
    package static func string(from date: Date) -> String {
        let millis = milliseconds(date)
        let (seconds, fraction) = (millis.floorDiv(1000), millis - millis.floorDiv(1000) * 1000)
        let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(secondsStyle)  // …THH:mm:ssZ
        let digits = String(fraction)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Milliseconds since 1970, rounded to the nearest.
    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
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

extension Int64 {
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
