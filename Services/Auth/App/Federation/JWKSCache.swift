import AsyncHTTPClient
import CryptoExtras
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SNSPlatform

/// One provider's published RSA keys (a JWKS), fetched over HTTP and cached.
///
/// - Cached for the answer's `Cache-Control: max-age` (5 minutes without one, at most a day); an expired set is
///   fetched again before it is used.
/// - A `kid` not in the set triggers one refetch — unless the set was fetched (or a fetch was tried) less than
///   `minRefreshInterval` ago, so a flood of tokens with made-up kids cannot make us hammer the provider, even
///   while it is down.
/// - Concurrent callers share one fetch in flight. Each fetch has a deadline (`timeout`).
/// - Only `kty: RSA` keys with a `kid` (and `alg` RS256 or none, `use` sig or none) are kept.
actor JWKSCache {
    typealias Fetch = @Sendable () async throws -> (body: Data, maxAge: Int?)

    private let fetch: Fetch
    private let minRefreshInterval: Duration
    private var keys: [String: _RSA.Signing.PublicKey] = [:]
    /// When the last fetch started (whether it succeeded or not).
    private var attemptedAt: ContinuousClock.Instant?
    private var expiresAt: ContinuousClock.Instant?
    private var inFlight: Task<Void, any Error>?

    static let defaultMaxAge = 300
    static let maxMaxAge = 86_400

    init(minRefreshInterval: Duration, fetch: @escaping Fetch) {
        self.minRefreshInterval = minRefreshInterval
        self.fetch = fetch
    }

    /// Fetches `url` with `client`, within `timeout`.
    init(url: String, client: HTTPClient, timeout: Duration, minRefreshInterval: Duration) {
        self.init(minRefreshInterval: minRefreshInterval) {
            try await Self.download(url: url, client: client, timeout: timeout)
        }
    }

    /// The key `kid`, or nil if the provider does not publish it (after the refetch the rules allow).
    /// Throws `FederationError.providerUnavailable` when the set is needed and cannot be fetched.
    func key(kid: String, logger: Logger) async throws -> _RSA.Signing.PublicKey? {
        let now = ContinuousClock.now
        if let expiresAt, now < expiresAt {
            if let key = keys[kid] { return key }
            if let attemptedAt, now - attemptedAt < minRefreshInterval {
                logger.info("unknown key id; key set fetched recently, not refetching")
                return nil
            }
            logger.info("unknown key id; refetching the key set")
        }
        try await refresh(logger: logger)
        return keys[kid]
    }

    private func refresh(logger: Logger) async throws {
        if let inFlight {
            try await inFlight.value
            return
        }
        let task = Task { try await self.load(logger: logger) }
        inFlight = task
        defer { inFlight = nil }
        try await task.value
    }

    private func load(logger: Logger) async throws {
        attemptedAt = ContinuousClock.now
        let (body, maxAge) = try await fetch()
        let parsed = try Self.parse(body)
        let lifetime = min(max(maxAge ?? Self.defaultMaxAge, 0), Self.maxMaxAge)
        let now = ContinuousClock.now
        keys = parsed
        expiresAt = now + .seconds(lifetime)
        logger.debug("key set fetched", metadata: ["keys": "\(parsed.count)", "max_age": "\(lifetime)"])
    }

    /// The RSA signing keys of a JWKS document, by kid.
    static func parse(_ body: Data) throws -> [String: _RSA.Signing.PublicKey] {
        struct JWK: Decodable {
            var kty: String?
            var kid: String?
            var alg: String?
            var use: String?
            var n: String?
            var e: String?
        }
        struct JWKS: Decodable { var keys: [JWK] }
        guard let set = try? JSONDecoder().decode(JWKS.self, from: body) else {
            throw FederationError.providerUnavailable("the key set is not a JWKS document")
        }
        var result: [String: _RSA.Signing.PublicKey] = [:]
        for jwk in set.keys
        where jwk.kty == "RSA" && (jwk.alg == nil || jwk.alg == "RS256") && (jwk.use == nil || jwk.use == "sig") {
            guard let kid = jwk.kid, let n = jwk.n.flatMap(Base64URL.decode), let e = jwk.e.flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e), key.keySizeInBits >= 2048
            else { continue }
            result[kid] = key
        }
        return result
    }

    static func download(url: String, client: HTTPClient, timeout: Duration) async throws -> (body: Data, maxAge: Int?)
    {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await client.execute(request, timeout: TimeAmount(timeout))
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw FederationError.providerUnavailable("key set request failed: \(error)")
        }
        guard response.status == .ok else {
            throw FederationError.providerUnavailable("key set answered \(response.status.code)")
        }
        return (Data(buffer: body), maxAge(cacheControl: response.headers["Cache-Control"].joined(separator: ",")))
    }

    /// `max-age=N` of a `Cache-Control` value; 0 for `no-cache`/`no-store`; nil when it says nothing.
    static func maxAge(cacheControl: String) -> Int? {
        var result: Int?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            switch parts.first {
            case "max-age":
                if parts.count == 2,
                    let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
                {
                    result = seconds
                }
            case "no-cache", "no-store": return 0
            default: break
            }
        }
        return result
    }
}

enum Base64URL {
    static func decode(_ text: String) -> Data? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
