import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks to the running stack through the nginx gateway over real HTTP, the way the iOS apps do:
/// `SesacKey` on every request, the bare access token in `Authorization`.
public struct GatewayClient: Sendable {
    public let baseURL: URL
    public let apiKey: String

    public struct Reply: Sendable {
        public let status: Int
        public let body: [UInt8]
        public let headers: [String: String]
        public var json: JSONObject { get throws { try JSONObject(body) } }
        public var text: String { String(decoding: body, as: UTF8.self) }
        public func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    public init() throws {
        guard let url = URL(string: try TestEnvironment.gatewayURL()) else { throw TestEnvironment.Missing(variable: "SNS_TEST_GATEWAY_URL") }
        self.baseURL = url
        self.apiKey = try TestEnvironment.apiKey()
    }

    public func send(_ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:], withKey: Bool = true) async throws -> Reply {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.timeoutInterval = 30
        if withKey { request.setValue(apiKey, forHTTPHeaderField: "SesacKey") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(json.utf8)
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields { fields["\(key)"] = "\(value)" }
        return Reply(status: http.statusCode, body: Array(data), headers: fields)
    }
}
