import Foundation
import HTTPTypes

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Talks to the running stack through the nginx gateway over real HTTP, the way the iOS apps do:
/// `SesacKey` on every request, the bare access token in `Authorization`.
package struct GatewayClient: Sendable {
    package let baseURL: URL
    package let apiKey: String

    package typealias Reply = TestReply

    /// One session for the whole test process with room for the suite's parallelism: `URLSession.shared` allows
    /// 6 connections per host, so parallel journeys queued behind each other's writes and timed out.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 256
        configuration.timeoutIntervalForRequest = 120
        return URLSession(configuration: configuration)
    }()

    package init() throws {
        guard let url = URL(string: try TestEnvironment.gatewayURL()) else {
            throw TestEnvironment.Missing(variable: "SNS_TEST_GATEWAY_URL")
        }
        self.baseURL = url
        self.apiKey = try TestEnvironment.apiKey()
    }

    /// A client of another HTTP server of the test stack (e.g. the PortOne test server's sandbox API).
    package init(baseURL: URL, apiKey: String = "") {
        self.baseURL = baseURL
        self.apiKey = apiKey
    }

    package func send(
        _ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:], withKey: Bool = true
    ) async throws -> Reply {
        try await send(
            method, path, body: json.map { Data($0.utf8) }, contentType: json == nil ? nil : "application/json",
            headers: headers, withKey: withKey)
    }

    /// A `multipart/form-data` upload, built the way Alamofire builds it: one part per file.
    package func upload(
        _ path: String, field: String, files: [(filename: String, mimeType: String, bytes: [UInt8])],
        headers: [String: String] = [:]
    ) async throws -> Reply {
        let boundary = "sns-test-\(UUID().uuidString)"
        var body = Data()
        for file in files {
            body.append(
                Data(
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(file.filename)\"\r\nContent-Type: \(file.mimeType)\r\n\r\n"
                        .utf8))
            body.append(contentsOf: file.bytes)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return try await send(
            "POST", path, body: body, contentType: "multipart/form-data; boundary=\(boundary)", headers: headers)
    }

    package func send(
        _ method: String, _ path: String, body: Data?, contentType: String?, headers: [String: String] = [:],
        withKey: Bool = true
    ) async throws -> Reply {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.timeoutInterval = 120  // a hang guard only: the suite saturates the machine at times
        if withKey { request.setValue(apiKey, forHTTPHeaderField: "SesacKey") }
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await Self.session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields = HTTPFields()
        for (key, value) in http.allHeaderFields {
            if let name = HTTPField.Name("\(key)") { fields.append(HTTPField(name: name, value: "\(value)")) }
        }
        return Reply(status: http.statusCode, body: Array(data), headers: fields)
    }
}
