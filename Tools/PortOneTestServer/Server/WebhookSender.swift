import AsyncHTTPClient
import Foundation
import NIOCore

/// Sends webhook POSTs with the process-wide `HTTPClient.shared` (which needs no shutdown).
enum WebhookSender {
    static func post(
        _ payload: PortOneWebhookPayload,
        to url: String,
        timeout: Duration
    ) async -> Result<Int, PortOneWebhookError> {
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "User-Agent", value: "sns-portone-test-server")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(payload)))
            let milliseconds =
                timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(milliseconds))
            // Drain the body so the connection can be reused; its content doesn't matter.
            _ = try? await response.body.collect(upTo: 1 << 20)
            return .success(Int(response.status.code))
        } catch {
            return .failure(.transport(url: url, description: String(describing: error)))
        }
    }
}
