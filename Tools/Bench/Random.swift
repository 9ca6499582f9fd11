/// SplitMix64: a small, seedable generator, so that a seeded graph and a load run's request sequence can be
/// reproduced from their `--seed`.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Draws indices 0..<n with probability proportional to `weights` (binary search over the cumulative sums).
struct WeightedPicker {
    private let cumulative: [Double]
    init(weights: [Double]) {
        var sum = 0.0
        cumulative = weights.map {
            sum += $0; return sum
        }
    }
    func pick(using rng: inout SplitMix64) -> Int {
        let target = Double.random(in: 0..<cumulative[cumulative.count - 1], using: &rng)
        var low = 0, high = cumulative.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] > target { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
