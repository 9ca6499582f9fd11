import Metrics

/// Prometheus counters of the payment flow (on `/metrics`): what operators watch for fraud attempts and PG outages.
enum PaymentMetrics {
    static func recorded(by: PaymentVerification.RecordedBy) {
        Counter(label: "sns_payments_recorded_total", dimensions: [("by", by.rawValue)]).increment()
    }

    static func rejected(_ reason: String) {
        Counter(label: "sns_payments_rejected_total", dimensions: [("reason", reason)]).increment()
    }

    static func refunds(_ outcome: String) {
        Counter(label: "sns_payments_refunds_total", dimensions: [("outcome", outcome)]).increment()
    }

    static func portOneFailure(_ kind: String) {
        Counter(label: "sns_portone_failures_total", dimensions: [("kind", kind)]).increment()
    }
}
