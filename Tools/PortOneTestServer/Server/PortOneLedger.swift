import Foundation

/// Everything the test server knows: credentials, tokens, payments and their cancels, faults, webhook
/// deliveries and call counters. Tests use it in process; the HTTP server and its sandbox API use the same
/// instance, so both views always agree. An actor, hence safe under concurrent requests.
///
/// Time is unix seconds from the wall clock plus an offset tests can move forward (`advanceClock(by:)`),
/// so token expiry can be exercised without waiting.
package actor PortOneLedger {
    struct Credential {
        var secret: String
        var tokenTTL: Int
    }

    struct IssuedToken {
        var impKey: String
        var issuedAt: Int
        var expiresAt: Int
    }

    struct ArmedFault {
        var id: Int
        var fault: PortOneFault
        var remaining: Int?
    }

    var credentials: [String: Credential] = [:]
    var tokens: [String: IssuedToken] = [:]
    var payments: [String: PortOnePayment] = [:]
    /// imp_uids in creation order (for merchant_uid look-ups and listings).
    var paymentOrder: [String] = []
    var faults: [ArmedFault] = []
    var nextFaultID = 1
    var tokenRequestCounts: [String: Int] = [:]
    var lookupCounts: [String: Int] = [:]
    var cancelRequestCounts: [String: Int] = [:]
    var deliveries: [PortOneWebhookDelivery] = []
    var clockOffset = 0

    /// Where webhooks go when a delivery names no URL.
    package private(set) var defaultWebhookURL: String?

    /// An empty ledger: no keys, no payments.
    package init(defaultWebhookURL: String? = nil) {
        self.defaultWebhookURL = defaultWebhookURL
    }

    /// Current time of the ledger clock, unix seconds.
    package var now: Int { Int(Date().timeIntervalSince1970) + clockOffset }

    /// Moves the ledger clock forward (tokens past their `expired_at` then answer 401).
    package func advanceClock(by seconds: Int) {
        clockOffset += seconds
    }

    package func setDefaultWebhookURL(_ url: String?) {
        defaultWebhookURL = url
    }

    /// Forgets payments, tokens, faults, counters and deliveries; keeps credentials and the webhook URL.
    package func reset() {
        tokens = [:]
        payments = [:]
        paymentOrder = []
        faults = []
        tokenRequestCounts = [:]
        lookupCounts = [:]
        cancelRequestCounts = [:]
        deliveries = []
        clockOffset = 0
    }
}

/// Random identifiers in the shapes iamport uses.
enum PortOneIdentifiers {
    static func hex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }

    static func digits(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
