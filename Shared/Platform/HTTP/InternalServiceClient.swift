import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// A synchronous call from one service to another's `/internal/v1/…` route, made **with the caller's own access
/// token**, so the callee authorizes exactly as it would for the app (decisions 0006, 0011). Every internal call
/// goes through here, so they all carry the same things: `SesacKey`, the token, the request id and the W3C trace
/// context, a deadline. And they all map the answer the same way:
/// - 200 → the decoded body;
/// - 4xx → the callee's `{"message"}` and status, passed on to the app as they are (400, 402, 409 …);
/// - no answer within the deadline, unreachable, 5xx or an undecodable 200 → 503, which the app may retry.
package struct InternalServiceClient: Sendable {
    /// The callee's name, for logs and messages ("media", "auth").
    package let service: String
    package let baseURL: String
    package let apiKey: String
    package let timeout: Duration

    package init(service: String, baseURL: String, apiKey: String, timeout: Duration) {
        self.service = service
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.timeout = timeout
    }

    /// Calls `method path` with `body` and decodes a 200 as `T` (with `APIJSON`'s decoder). `refusal` is the message
    /// for a 4xx that carries none of its own.
    package func call<T: Decodable>(
        _ method: HTTPMethod, _ path: String, body: ByteBuffer, contentType: String, token: String,
        trace: TraceContext, refusal: String = "요청을 처리할 수 없습니다.", logger: Logger, as type: T.Type = T.self
    ) async throws -> T {
        try await call(
            method, path, requestBody: .bytes(body), contentType: contentType, token: token, trace: trace,
            refusal: refusal, logger: logger, as: type)
    }

    /// The same with a body that may still be arriving, `length` bytes when known (a client's upload passed on as it
    /// streams in: decision 0046).
    package func call<T: Decodable, Body: AsyncSequence & Sendable>(
        _ method: HTTPMethod, _ path: String, streaming body: Body, length: Int?, contentType: String, token: String,
        trace: TraceContext, refusal: String = "요청을 처리할 수 없습니다.", logger: Logger, as type: T.Type = T.self
    ) async throws -> T where Body.Element == ByteBuffer {
        // The answer may come before the body is read through: return only once the HTTP client is out of the body's
        // stream (`RelayedBody`), which the handler's caller drains next.
        let gate = RelayGate()
        let relayed = RelayedBody(base: body, gate: gate)
        do {
            let answer = try await call(
                method, path, requestBody: .stream(relayed, length: length.map { .known(Int64($0)) } ?? .unknown),
                contentType: contentType, token: token, trace: trace, refusal: refusal, logger: logger, as: type)
            await gate.close()
            return answer
        } catch {
            await gate.close()
            throw error
        }
    }

    private func call<T: Decodable>(
        _ method: HTTPMethod, _ path: String, requestBody body: HTTPClientRequest.Body, contentType: String,
        token: String, trace: TraceContext, refusal: String, logger: Logger, as type: T.Type
    ) async throws -> T {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        var headers = HTTPHeaders()
        headers.add(name: "SesacKey", value: apiKey)
        headers.add(name: "Authorization", value: token)
        headers.add(name: "Content-Type", value: contentType)
        if let requestId = trace.requestId { headers.add(name: "X-Request-ID", value: requestId) }
        if let traceparent = trace.traceparent { headers.add(name: "traceparent", value: traceparent) }
        request.headers = headers
        request.body = body

        let response: HTTPClientResponse
        let answer: ByteBuffer
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout.milliseconds)))
            answer = try await response.body.collect(upTo: 1 << 20)
        } catch {
            logger.error(
                "internal call failed", metadata: ["service": "\(service)", "path": "\(path)", "error": "\(error)"])
            throw APIError.unavailable("\(service) 서비스에 연결할 수 없습니다. (\(service) unavailable, try again)")
        }
        let status = Int(response.status.code)
        if status == 200 {
            do {
                return try APIJSON.decoder().decode(T.self, from: Data(buffer: answer))
            } catch {
                logger.error(
                    "internal call answered unexpectedly",
                    metadata: ["service": "\(service)", "path": "\(path)", "error": "\(error)"])
                throw APIError.unavailable()
            }
        }
        if (400..<500).contains(status) {
            let message = (try? JSONDecoder().decode(MessageBody.self, from: Data(buffer: answer)))?.message ?? refusal
            throw APIError(status, message)
        }
        logger.error(
            "internal call failed", metadata: ["service": "\(service)", "path": "\(path)", "status": "\(status)"])
        throw APIError.unavailable("\(service) 서비스가 일시적으로 응답하지 않습니다. (\(service) failed, try again)")
    }
}
