import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SNSPlatform

/// One answer, whatever carried the request: an in-process router (`TestClientProtocol`) or the gateway
/// (`GatewayClient`). Tests read it typed (`decode`, the models in `APIModels.swift`) or, where the exact key set
/// is the point, loosely (`json`).
package struct TestReply: Sendable {
    package let status: Int
    package let body: [UInt8]
    package let headers: HTTPFields

    package init(status: Int, body: [UInt8], headers: HTTPFields = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    package var json: JSONObject { get throws { try JSONObject(body) } }
    package var text: String { String(decoding: body, as: UTF8.self) }

    package func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }

    /// The body decoded the way the apps decode it: their key names, dates as the API writes them.
    package func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        do {
            return try APIModels.decoder.decode(type, from: Data(body))
        } catch {
            throw UnexpectedReply(status: status, text: "\(text) — not a \(type): \(error)")
        }
    }
}

/// A reply a test cannot go on with (e.g. no `files` in an upload's answer): it fails the test with the answer.
package struct UnexpectedReply: Error, CustomStringConvertible {
    package let status: Int
    package let text: String
    package init(status: Int, text: String) {
        self.status = status
        self.text = text
    }
    package var description: String { "unexpected reply \(status): \(text)" }
}

/// A user as a test acts for it: its id, nick and a valid access token.
package struct TestUser: Sendable {
    package let userId: String
    package let nick: String
    package let token: String

    package init(userId: String, nick: String, token: String) {
        self.userId = userId
        self.nick = nick
        self.token = token
    }
}

/// A request built the way the iOS apps build theirs: `SesacKey` on every request (unless a test leaves it out or
/// sends another), the bare access token in `Authorization`, a JSON body with its content type.
package struct AppRequest: Sendable {
    package var method: HTTPRequest.Method
    package var path: String
    package var headers: HTTPFields
    package var body: [UInt8]?

    package init(
        _ method: HTTPRequest.Method, _ path: String, apiKey: String?, token: String? = nil, json: String? = nil,
        body: [UInt8]? = nil, contentType: String? = nil, headers extra: [String: String] = [:]
    ) {
        self.method = method
        self.path = path
        var headers = HTTPFields()
        if let apiKey { headers[HTTPField.Name("SesacKey")!] = apiKey }
        if let token { headers[.authorization] = token }
        if let contentType {
            headers[.contentType] = contentType
        } else if json != nil {
            headers[.contentType] = "application/json"
        }
        for (name, value) in extra { headers[HTTPField.Name(name)!] = value }
        self.headers = headers
        self.body = json.map { Array($0.utf8) } ?? body
    }

    /// The API key a client sends: its own by default (`.none`), another one, or none at all (`.some(nil)`).
    package static func key(_ override: String??, default own: String) -> String? {
        switch override {
        case .none: own
        case .some(let value): value
        }
    }
}

extension TestClientProtocol {
    /// Sends `request` to the in-process application.
    package func send(_ request: AppRequest) async throws -> TestReply {
        let response = try await execute(
            uri: request.path, method: request.method, headers: request.headers,
            body: request.body.map { ByteBuffer(bytes: $0) })
        return TestReply(
            status: Int(response.status.code), body: Array(buffer: response.body), headers: response.headers)
    }
}
