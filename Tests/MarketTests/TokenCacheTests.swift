import Foundation
import Synchronization
import Testing

@testable import MarketService

/// The PortOne token cache on its own, with the clock passed in (no waiting).
@Suite("PortOne token cache")
struct TokenCacheTests {
    final class Issuer: Sendable {
        let issued = Mutex(0)
        func next() -> PortOneTokenResponse {
            let n = issued.withLock {
                $0 += 1; return $0
            }
            // PortOne's clock is far from ours on purpose: only the lifetime (expired_at - now) may count.
            return PortOneTokenResponse(accessToken: "token-\(n)", now: 5_000_000, expiredAt: 5_000_000 + 1800)
        }
    }

    @Test func aTokenIsReusedUntilAMinuteBeforeItsExpiry() async throws {
        let issuer = Issuer()
        let cache = PortOneTokenCache { issuer.next() }
        let t0 = Date()
        #expect(try await cache.token(now: t0) == "token-1")
        #expect(try await cache.token(now: t0.addingTimeInterval(1739)) == "token-1")
        #expect(try await cache.token(now: t0.addingTimeInterval(1741)) == "token-2")
        #expect(await cache.fetches == 2)
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        let issuer = Issuer()
        let cache = PortOneTokenCache { issuer.next() }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await cache.token() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == ["token-1"])
        #expect(issuer.issued.withLock { $0 } == 1)
    }

    @Test func aRefusedTokenIsDroppedButANewerOneIsKept() async throws {
        let issuer = Issuer()
        let cache = PortOneTokenCache { issuer.next() }
        #expect(try await cache.token() == "token-1")
        await cache.invalidate("token-1")
        #expect(try await cache.token() == "token-2")
        await cache.invalidate("token-1")  // a late report about the old token
        #expect(try await cache.token() == "token-2")
    }

    @Test func aFailedFetchIsNotCached() async throws {
        struct Down: Error {}
        let failures = Mutex(1)
        let cache = PortOneTokenCache {
            if failures.withLock({ f in
                defer { f -= 1 }; return f > 0
            }) {
                throw Down()
            }
            return PortOneTokenResponse(accessToken: "ok", now: 0, expiredAt: 1800)
        }
        await #expect(throws: Down.self) { try await cache.token() }
        #expect(try await cache.token() == "ok")
    }
}
