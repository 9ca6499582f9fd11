import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SNSPlatform

/// One answer, whatever carried the request: an in-process router (`TestClientProtocol`) or the gateway
/// (`GatewayClient`). Tests read it typed (`decode`, the models in `APIModels.swift`) or, where the exact key set
/// is the point, loosely (`json`).
public struct TestReply: Sendable {
    public let status: Int
    public let body: [UInt8]
    public let headers: HTTPFields

    public init(status: Int, body: [UInt8], headers: HTTPFields = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    public var json: JSONObject { get throws { try JSONObject(body) } }
    public var text: String { String(decoding: body, as: UTF8.self) }

    public func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }

    /// The body decoded the way the apps decode it: their key names, dates as the API writes them.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        do {
            return try APIModels.decoder.decode(type, from: Data(body))
        } catch {
            throw UnexpectedReply(status: status, text: "\(text) — not a \(type): \(error)")
        }
    }
}

/// A reply a test cannot go on with (e.g. no `files` in an upload's answer): it fails the test with the answer.
public struct UnexpectedReply: Error, CustomStringConvertible {
    public let status: Int
    public let text: String
    public init(status: Int, text: String) {
        self.status = status
        self.text = text
    }
    public var description: String { "unexpected reply \(status): \(text)" }
}

/// A user as a test acts for it: its id, nick and a valid access token.
public struct TestUser: Sendable {
    public let userId: String
    public let nick: String
    public let token: String

    public init(userId: String, nick: String, token: String) {
        self.userId = userId
        self.nick = nick
        self.token = token
    }
}

/// A request built the way the iOS apps build theirs: `SesacKey` on every request (unless a test leaves it out or
/// sends another), the bare access token in `Authorization`, a JSON body with its content type.
public struct AppRequest: Sendable {
    public var method: HTTPRequest.Method
    public var path: String
    public var headers: HTTPFields
    public var body: [UInt8]?

    public init(
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
    public static func key(_ override: String??, default own: String) -> String? {
        switch override {
        case .none: own
        case .some(let value): value
        }
    }
}

extension TestClientProtocol {
    /// Sends `request` to the in-process application.
    public func send(_ request: AppRequest) async throws -> TestReply {
        let response = try await execute(
            uri: request.path, method: request.method, headers: request.headers,
            body: request.body.map { ByteBuffer(bytes: $0) })
        return TestReply(
            status: Int(response.status.code), body: Array(buffer: response.body), headers: response.headers)
    }
}
