import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import SNSPlatform

/// The one synchronous call of the posts service (decision 0011): a G0 (2023) post carries its images inline
/// in the multipart form, and media owns files, so each image is handed to media's internal
/// `POST /internal/v1/post-images` with the caller's own access token — media sniffs, limits, stores and
/// signs it exactly as for `POST /v1/posts/files`, and the returned path then passes the same `files` check
/// as a G1 client's. A 4xx from media is passed on to the app as is (400 for a bad image); an unreachable or
/// failing media is a 503 the app can retry. Same shape as social's profile-image call.
struct MediaClient: Sendable {
    let mediaURL: String
    let apiKey: String
    let timeout: Duration

    func storePostImage(_ bytes: ByteBuffer, token: String, trace: TraceContext, logger: Logger) async throws -> String {
        struct Stored: Decodable { var path: String }
        var request = HTTPClientRequest(url: mediaURL + "/internal/v1/post-images")
        request.method = .POST
        var headers = HTTPHeaders()
        headers.add(name: "SesacKey", value: apiKey)
        headers.add(name: "Authorization", value: token)
        headers.add(name: "Content-Type", value: "application/octet-stream")
        if let requestId = trace.requestId { headers.add(name: "X-Request-ID", value: requestId) }
        if let traceparent = trace.traceparent { headers.add(name: "traceparent", value: traceparent) }
        request.headers = headers
        request.body = .bytes(bytes)

        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout.milliseconds)))
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            logger.error("internal call failed", metadata: ["service": "media", "error": "\(error)"])
            throw APIError.unavailable("media 서비스에 연결할 수 없습니다. (media unavailable, try again)")
        }
        let status = Int(response.status.code)
        if status == 200 {
            guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(buffer: body)) else {
                logger.error("internal call answered unexpectedly", metadata: ["service": "media"])
                throw APIError.unavailable()
            }
            return stored.path
        }
        if (400..<500).contains(status) {
            let message = (try? JSONDecoder().decode(MessageBody.self, from: Data(buffer: body)))?.message ?? "파일이 제한 사항에 맞지 않습니다."
            throw APIError(status, message)
        }
        logger.error("internal call failed", metadata: ["service": "media", "status": "\(status)"])
        throw APIError.unavailable("media 서비스가 일시적으로 응답하지 않습니다. (media failed, try again)")
    }
}
