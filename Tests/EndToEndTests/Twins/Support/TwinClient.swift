import Foundation
import SNSTestSupport
import Testing

/// The network layer of one real iOS app, rebuilt for the tests (a "client twin"): a `TwinRequest` is exactly
/// what that app's router builds — method, path, query (with empty values and value-less names as the app sends
/// them), header names, body bytes as the app's encoder writes them, multipart parts with the app's field names,
/// file names and declared types — and answers are decoded with `Decodable` types that mirror the app's own
/// declarations (same keys, types, optionality, custom `init(from:)` rules and date handling).
///
/// Nothing here adds a header the app would not send: the `SesacKey` header is set by the twin, under the
/// spelling the app uses.
struct TwinRequest: Sendable {
    var method: String
    /// The path as the app builds it, including `/v1` for G1 apps and nothing for G0 apps.
    var path: String
    /// The query string without `?`, already encoded as the app's library encodes it (see `TwinQuery`).
    var query: String? = nil
    var headers: [(String, String)] = []
    var body: Data? = nil

    init(_ method: String, _ path: String, query: String? = nil, headers: [(String, String)] = [], body: Data? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// A JSON body written with the app's encoder (default `JSONEncoder()`, as the apps use it).
    static func json<Body: Encodable>(
        _ method: String, _ path: String, _ body: Body, headers: [(String, String)],
        encoder: JSONEncoder = JSONEncoder()
    ) throws -> TwinRequest {
        TwinRequest(
            method, path, headers: headers + [("Content-Type", "application/json")], body: try encoder.encode(body))
    }

    /// A `multipart/form-data` body.
    static func multipart(_ method: String, _ path: String, _ form: TwinMultipart, headers: [(String, String)])
        -> TwinRequest
    {
        TwinRequest(method, path, headers: headers + [("Content-Type", form.contentType)], body: form.encoded())
    }
}

/// Query strings as the apps' libraries build them.
enum TwinQuery {
    /// Alamofire's `URLEncoding.default`/`.queryString` and Moya's `.requestParameters(..., encoding: URLEncoding...)`:
    /// keys sorted, `key=value` joined by `&`, RFC 3986 escaping that keeps `?` and `/` (Alamofire's
    /// `CharacterSet.afURLQueryAllowed`). An empty value gives `key=`.
    static func alamofire(_ parameters: [(String, String)]) -> String {
        parameters.sorted { $0.0 < $1.0 }.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// `URLComponents.queryItems` in the order given (Foundation's encoding: spaces as `%20`, `+` kept); a `nil`
    /// value gives the bare name (`?next&limit=10`), as `URLQueryItem(name:value: nil)` does.
    static func urlComponents(_ items: [(String, String?)]) -> String {
        var components = URLComponents()
        components.queryItems = items.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.percentEncodedQuery ?? ""
    }

    static func escape(_ string: String) -> String {
        let generalDelimiters = ":#[]@"
        let subDelimiters = "!$&'()*+,;="
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: generalDelimiters + subDelimiters)
        return string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }
}

/// A `multipart/form-data` body built part by part, in the order the app appends them.
struct TwinMultipart: Sendable {
    struct Part: Sendable {
        var name: String
        var filename: String?
        var mimeType: String?
        var data: Data
    }

    var boundary =
        "alamofire.boundary.\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
    private(set) var parts: [Part] = []

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    init() {}

    /// A text part. `mimeType` is what the app declares (Alamofire's `append(_:withName:)` declares none;
    /// some apps pass `mimeType: "text/plain"`).
    mutating func text(_ name: String, _ value: String, mimeType: String? = nil) {
        parts.append(Part(name: name, filename: nil, mimeType: mimeType, data: Data(value.utf8)))
    }

    mutating func file(_ name: String, filename: String, mimeType: String, bytes: [UInt8]) {
        parts.append(Part(name: name, filename: filename, mimeType: mimeType, data: Data(bytes)))
    }

    func encoded() -> Data {
        var body = Data()
        for part in parts {
            var disposition = "Content-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { disposition += "; filename=\"\(filename)\"" }
            body.append(Data("--\(boundary)\r\n\(disposition)\r\n".utf8))
            if let mimeType = part.mimeType { body.append(Data("Content-Type: \(mimeType)\r\n".utf8)) }
            body.append(Data("\r\n".utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return body
    }
}

/// Sends twin requests through the gateway and decodes answers with the app's types.
struct TwinClient: Sendable {
    let gateway: GatewayClient
    /// The API key of the test stack, for the twin's `SesacKey`/`SeSACKey` header.
    let apiKey: String

    init() throws {
        gateway = try GatewayClient()
        apiKey = try TestEnvironment.apiKey()
    }

    /// Sends the request exactly as built: no header is added (not even `SesacKey`).
    func send(_ request: TwinRequest) async throws -> GatewayClient.Reply {
        var path = request.path
        if let query = request.query { path += "?" + query }
        var headers: [String: String] = [:]
        var contentType: String?
        for (name, value) in request.headers {
            if name.lowercased() == "content-type" { contentType = value } else { headers[name] = value }
        }
        return try await gateway.send(
            request.method, path, body: request.body, contentType: contentType, headers: headers, withKey: false)
    }

    /// Decodes an answer with the app's own type and decoder; a failure names the type and shows the body.
    func decode<Model: Decodable>(
        _ type: Model.Type, from reply: GatewayClient.Reply,
        decoder: JSONDecoder = JSONDecoder()
    ) throws -> Model {
        do {
            return try decoder.decode(type, from: Data(reply.body))
        } catch {
            throw TwinDecodingFailure(type: "\(type)", status: reply.status, body: reply.text, underlying: "\(error)")
        }
    }

    /// Sends, expects `status` (200 unless told), decodes.
    func call<Model: Decodable>(
        _ request: TwinRequest, as type: Model.Type, status: Int = 200,
        decoder: JSONDecoder = JSONDecoder(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Model {
        let reply = try await send(request)
        #expect(
            reply.status == status, "\(request.method) \(request.path): \(reply.status) \(reply.text)",
            sourceLocation: sourceLocation)
        return try decode(type, from: reply, decoder: decoder)
    }
}

struct TwinDecodingFailure: Error, CustomStringConvertible {
    let type: String
    let status: Int
    let body: String
    let underlying: String
    var description: String {
        "the app's \(type) could not decode the \(status) answer \(body.prefix(600)): \(underlying)"
    }
}

/// An answer the twins decode when they only look at the status (the apps use `.response` or check the code).
struct TwinIgnored: Decodable {}

/// `{message}` — the error body every app decodes.
struct TwinMessage: Decodable { let message: String }
