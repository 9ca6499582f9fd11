import Foundation
import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    package static let requestID = HTTPField.Name("X-Request-ID")!
    package static let sesacKey = HTTPField.Name("SesacKey")!
    package static let refresh = HTTPField.Name("Refresh")!
    /// The refresh token's header in G2 apps (WeeMo; decision 0021).
    package static let refreshToken = HTTPField.Name("RefreshToken")!
    package static let traceparent = HTTPField.Name("traceparent")!
}

/// The request id the gateway set (`X-Request-ID`), checked, or a new one; `EdgeMiddleware` puts it on the logger
/// and the context (so outbox rows and Kafka headers carry it) and echoes it on the response, errors included.
package enum RequestID {
    /// The caller's id if acceptable, else a new one.
    static func of(_ request: Request) -> String {
        acceptable(request.headers[.requestID]) ?? UUID().uuidString.lowercased()
    }

    /// `version-traceid-parentid-flags` in lower-case hex (W3C Trace Context), else nil.
    static func validTraceparent(_ value: String?) -> String? {
        guard let value else { return nil }
        let parts = value.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, [2, 32, 16, 2] == parts.map(\.count),
            parts.allSatisfy({ $0.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) } })
        else { return nil }
        return value
    }

    /// Only short ids of safe characters are taken over, so a client cannot inject into logs.
    /// Checks the UTF-8 bytes: every request through the gateway carries an id, and Unicode property look-ups
    /// per character showed in the page profile.
    static func acceptable(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 128,
            value.utf8.allSatisfy({ byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                    UInt8(ascii: ":"):
                    true
                default: false
                }
            })
        else { return nil }
        return value
    }
}
