import Foundation

/// The PortOne access token, fetched once and shared by every request until shortly before it expires.
/// Concurrent callers that find no usable token wait for one shared fetch (never a stampede of getToken calls).
/// PortOne's own clock (`now`, `expired_at`) only gives the lifetime; the deadline is kept on our clock.
actor PortOneTokenCache {
    struct Token: Sendable {
        let value: String
        let refreshAfter: Date
    }

    typealias Fetch = @Sendable () async throws -> PortOneTokenResponse

    private let fetch: Fetch
    /// How long before PortOne's expiry a token is replaced (at most half its lifetime).
    private let margin: TimeInterval
    private var current: Token?
    private var inFlight: Task<Token, any Error>?
    private(set) var fetches = 0

    init(margin: TimeInterval = 60, fetch: @escaping Fetch) {
        self.margin = margin
        self.fetch = fetch
    }

    func token(now: Date = Date()) async throws -> String {
        if let current, now < current.refreshAfter { return current.value }
        if let inFlight { return try await inFlight.value.value }
        let fetch = self.fetch
        let margin = self.margin
        let task = Task<Token, any Error> {
            let issued = try await fetch()
            let lifetime = TimeInterval(max(issued.expiredAt - issued.now, 0))
            return Token(
                value: issued.accessToken, refreshAfter: now.addingTimeInterval(lifetime - min(margin, lifetime / 2)))
        }
        inFlight = task
        fetches += 1
        do {
            let token = try await task.value
            current = token
            inFlight = nil
            return token.value
        } catch {
            inFlight = nil
            throw error
        }
    }

    /// Forgets `token` after PortOne refused it (revoked or expired early); a newer token is kept.
    func invalidate(_ token: String) {
        if current?.value == token { current = nil }
    }
}
