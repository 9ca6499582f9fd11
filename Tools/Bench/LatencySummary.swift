import Foundation

/// Percentiles of a set of latencies (milliseconds), nearest-rank.
struct LatencySummary {
    let count: Int
    private let sorted: [Double]

    init(_ values: [Double]) {
        sorted = values.sorted()
        count = values.count
    }

    func percentile(_ p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(sorted.count - 1, Swift.max(0, rank - 1))]
    }

    var max: Double? { sorted.last }
}

/// `12.3 ms`, `1.23 s`, `–` for none.
func formatMilliseconds(_ value: Double?) -> String {
    guard let value else { return "–" }
    if value >= 1000 { return String(format: "%.2f s", value / 1000) }
    if value >= 100 { return String(format: "%.0f ms", value) }
    return String(format: "%.1f ms", value)
}
