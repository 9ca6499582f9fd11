import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SNSPlatform

/// PortOne (iamport) REST API v1, server to server: `POST /users/getToken`, `GET /payments/{imp_uid}`,
/// `POST /payments/cancel`. Every call has a deadline; transport failures, timeouts, 5xx and 429 are retried
/// with exponential backoff (lookups are reads; a cancel carries `checksum`, so repeating it cannot refund twice).
/// A refused token (401) is replaced once per call. Secrets and tokens are never logged.
struct PortOneClient: Sendable {
    struct Settings: Sendable {
        var baseURL: String
        var impKey: String
        var impSecret: String
        var timeout: Duration = .seconds(5)
        var attempts: Int = 3
        var retryBase: Duration = .milliseconds(200)
    }

    let settings: Settings
    let tokens: PortOneTokenCache

    init(settings: Settings) {
        self.settings = settings
        let fetchSettings = settings
        self.tokens = PortOneTokenCache { try await Self.issueToken(settings: fetchSettings) }
    }

    /// The payment, or nil if PortOne does not know `impUid` (404).
    func payment(_ impUid: String, logger: Logger) async throws -> PortOnePaymentResponse? {
        let path = "/payments/" + impUid  // impUid is validated as [A-Za-z0-9_-] by the caller
        let (status, body) = try await authorizedCall(.GET, path: path, body: nil, logger: logger)
        if status == 404 {
            // Only PortOne's own "no such payment" counts (its envelope); any other 404 is a misconfigured URL or a
            // proxy, which must not make a real payment look unknown.
            struct Ignored: Decodable, Sendable {}
            guard (try? JSONDecoder().decode(PortOneEnvelope<Ignored>.self, from: Data(buffer: body))) != nil else {
                throw PortOneError.unexpected(
                    "GET /payments answered 404 without PortOne's envelope (check SNS_PORTONE_URL)")
            }
            return nil
        }
        guard status == 200 else { throw PortOneError.unexpected("GET /payments answered \(status)") }
        let envelope = try decode(PortOneEnvelope<PortOnePaymentResponse>.self, body, what: "payment")
        guard envelope.code == 0, let payment = envelope.response else {
            throw PortOneError.unexpected("payment lookup answered code \(envelope.code): \(envelope.message ?? "-")")
        }
        guard payment.impUid == impUid else { throw PortOneError.unexpected("payment lookup returned another imp_uid") }
        return payment
    }

    /// Cancels (refunds) the whole payment. `checksum` is the amount we believe is refundable, so PortOne refuses a
    /// cancel that would refund anything else; a repeated cancel is answered "already cancelled".
    func cancel(_ impUid: String, checksum: Int, reason: String, logger: Logger) async throws -> PortOneCancelResult {
        struct CancelBody: Encodable {
            var impUid: String
            var checksum: Int
            var reason: String
            enum CodingKeys: String, CodingKey { case impUid = "imp_uid", checksum, reason }
        }
        let json = try JSONEncoder().encode(CancelBody(impUid: impUid, checksum: checksum, reason: reason))
        let (status, body) = try await authorizedCall(
            .POST, path: "/payments/cancel", body: ByteBuffer(bytes: json), logger: logger)
        guard status == 200 else { throw PortOneError.unexpected("POST /payments/cancel answered \(status)") }
        struct Ignored: Decodable, Sendable {}
        let envelope = try decode(PortOneEnvelope<Ignored>.self, body, what: "cancel")
        if envelope.code == 0 { return .cancelled }
        // code != 0: already cancelled, or refused. The payment's state says which.
        if let payment = try await payment(impUid, logger: logger), payment.status == "cancelled" {
            return .alreadyCancelled
        }
        return .refused(envelope.message ?? "code \(envelope.code)")
    }

    // MARK: Calls

    /// One call with the shared token: retried on transient failures; on 401 the token is replaced once.
    private func authorizedCall(_ method: HTTPMethod, path: String, body: ByteBuffer?, logger: Logger) async throws -> (
        Int, ByteBuffer
    ) {
        var renewedToken = false
        var attempt = 0
        var lastFailure = "no attempt"
        while attempt < settings.attempts {
            attempt += 1
            let token = try await tokens.token()
            var request = HTTPClientRequest(url: settings.baseURL + path)
            request.method = method
            request.headers.add(name: "Authorization", value: "Bearer " + token)
            request.headers.add(name: "Accept", value: "application/json")
            if let body {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(body)
            }
            do {
                let (status, responseBody) = try await send(request)
                if status == 401 {
                    await tokens.invalidate(token)
                    if renewedToken {
                        throw PortOneError.credentialsRejected("\(method) \(path) refused a fresh token")
                    }
                    renewedToken = true
                    attempt -= 1  // a replaced token is not a failed attempt
                    logger.info("PortOne refused the cached token; fetching a new one", metadata: ["path": "\(path)"])
                    continue
                }
                if status >= 500 || status == 429 {
                    lastFailure = "HTTP \(status)"
                } else {
                    return (status, responseBody)
                }
            } catch let error as PortOneError {
                throw error
            } catch {
                lastFailure = Self.describe(error)
            }
            logger.warning(
                "PortOne call failed",
                metadata: [
                    "path": "\(method) \(path)", "attempt": "\(attempt)", "of": "\(settings.attempts)",
                    "reason": "\(lastFailure)",
                ])
            if attempt < settings.attempts {
                try await Task.sleep(for: Backoff.delay(attempt: attempt, base: settings.retryBase, cap: .seconds(2)))
            }
        }
        throw PortOneError.unreachable(lastFailure)
    }

    private func send(_ request: HTTPClientRequest) async throws -> (Int, ByteBuffer) {
        let timeout = TimeAmount.milliseconds(Int64(settings.timeout.milliseconds))
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), body)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: ByteBuffer, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: body))
        } catch {
            throw PortOneError.unexpected("malformed \(what) body: \(error)")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError,
            error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout
        {
            return "timeout"
        }
        return String(describing: error)
    }

    /// `POST /users/getToken`, retried like the other calls (it has no side effects).
    static func issueToken(settings: Settings) async throws -> PortOneTokenResponse {
        struct Credentials: Encodable {
            var impKey: String
            var impSecret: String
            enum CodingKeys: String, CodingKey { case impKey = "imp_key", impSecret = "imp_secret" }
        }
        let json = try JSONEncoder().encode(Credentials(impKey: settings.impKey, impSecret: settings.impSecret))
        var lastFailure = "no attempt"
        for attempt in 1...max(settings.attempts, 1) {
            var request = HTTPClientRequest(url: settings.baseURL + "/users/getToken")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Accept", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: json))
            do {
                let response = try await HTTPClient.shared.execute(
                    request, timeout: .milliseconds(Int64(settings.timeout.milliseconds)))
                let body = try await response.body.collect(upTo: 1 << 16)
                let status = Int(response.status.code)
                if status == 200 {
                    let envelope = try JSONDecoder().decode(
                        PortOneEnvelope<PortOneTokenResponse>.self, from: Data(buffer: body))
                    guard envelope.code == 0, let token = envelope.response else {
                        throw PortOneError.credentialsRejected(envelope.message ?? "code \(envelope.code)")
                    }
                    return token
                }
                if (400..<500).contains(status) && status != 429 {
                    throw PortOneError.credentialsRejected("getToken answered \(status)")
                }
                lastFailure = "getToken HTTP \(status)"
            } catch let error as PortOneError {
                throw error
            } catch is DecodingError {
                throw PortOneError.unexpected("malformed getToken body")
            } catch {
                lastFailure = "getToken: " + describe(error)
            }
            if attempt < settings.attempts {
                try await Task.sleep(for: Backoff.delay(attempt: attempt, base: settings.retryBase, cap: .seconds(2)))
            }
        }
        throw PortOneError.unreachable(lastFailure)
    }
}
