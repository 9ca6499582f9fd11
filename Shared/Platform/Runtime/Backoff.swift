import Foundation

/// Exponential backoff shared by the outbox relay and consumers: `base`, `2·base`, `4·base` … capped at `cap`.
package enum Backoff {
    package static func delay(attempt: Int, base: Duration, cap: Duration) -> Duration {
        let factor = 1 << min(max(attempt - 1, 0), 16)
        let delay = base * factor
        return delay < cap ? delay : cap
    }
}

extension Duration {
    /// The duration in (fractional) seconds, for `Date` arithmetic.
    package var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }

    /// The duration in (fractional) milliseconds, for logs.
    package var milliseconds: Double { timeInterval * 1000 }
}
