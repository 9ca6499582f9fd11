import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The public API as the apps call it: the gateway's base URL, `SesacKey` on every request, the bare access
/// token in `Authorization`, over an AsyncHTTPClient pool of at most `connections` HTTP/1.1 connections.
struct GatewayClient: Sendable {
    let baseURL: String
    let apiKey: String
    let http: HTTPClient

    init(baseURL: String, apiKey: String, connections: Int) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        // A request waiting for a pooled connection fails after `connect`: as long as the whole request may take, so that
        // queueing past the knee shows as latency rather than as errors.
        configuration.timeout = .init(connect: .seconds(30), read: .seconds(30))
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async throws { try await http.shutdown() }

    func request(_ method: HTTPMethod, _ path: String, token: String? = nil, json: [String: any Sendable]? = nil) throws
        -> HTTPClientRequest
    {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "SesacKey", value: apiKey)
        if let token { request.headers.add(name: "Authorization", value: token) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        return request
    }

    /// Sends the request and reads the whole reply.
    func send(_ request: HTTPClientRequest, timeout: TimeAmount = .seconds(30)) async throws -> (
        status: Int, body: ByteBuffer
    ) {
        let response = try await http.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), body)
    }

    /// For the seeder: the reply as a JSON object; a status outside `accept` is an error naming the call.
    @discardableResult
    func call(
        _ method: HTTPMethod, _ path: String, token: String? = nil, json: [String: any Sendable]? = nil,
        accept: Set<Int> = [200]
    ) async throws -> [String: Any] {
        let (status, body) = try await send(try request(method, path, token: token, json: json))
        let text = String(buffer: body)
        guard accept.contains(status) else {
            throw BenchError("\(method) \(path) answered \(status): \(text.prefix(200))")
        }
        guard status == 200 else { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
