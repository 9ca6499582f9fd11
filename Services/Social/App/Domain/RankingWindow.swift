import Foundation
import SNSPlatform

/// A ranking's time window (`window=1h|24h|7d`, default 24h) and its decay: every event's weight halves
/// every quarter of the window (half-life 15 min, 6 h, 42 h), so a ranking favours what is happening now
/// while still counting the whole window (decision 0006).
enum RankingWindow: String, Sendable, CaseIterable {
    case hour = "1h"
    case day = "24h"
    case week = "7d"

    init(query: String?) throws {
        guard let query, !query.isEmpty else { self = .day; return }
        guard let window = RankingWindow(rawValue: query) else {
            throw APIError.badRequest("window 값이 올바르지 않습니다. (window must be 1h, 24h or 7d)")
        }
        self = window
    }

    var seconds: Double {
        switch self {
        case .hour: 3_600
        case .day: 86_400
        case .week: 604_800
        }
    }

    var halfLifeSeconds: Double { seconds / 4 }
}
