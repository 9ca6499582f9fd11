import Foundation
import SNSTestSupport
import Testing

/// Requests nginx refuses before any service sees them still get the API's error shape: JSON `{"message"}`,
/// never nginx's HTML pages. Sent as raw bytes over a socket (`RawSocket`), because an HTTP client library would
/// refuse to send, or would repair, the malformed requests.
@Suite("Gateway's own errors are JSON")
struct GatewayErrorsTests {
    struct RawReply {
        let status: Int
        let contentType: String?
        let body: String
    }

    /// Sends `request` over a plain TCP socket and reads the answer until the gateway closes the connection.
    /// By default the socket is half-closed after the request (`shutdown(SHUT_WR)`), so nginx has read everything
    /// the client will send when it answers and closes: without that, a refused request's unread bytes could make it
    /// reset the connection, and a reset discards an answer the client has not read yet (seen in full-suite runs).
    /// A request that announces a body is not half-closed: a client that stops sending mid-body is another case
    /// (nginx then answers 413 with its own page, which no app does).
    func raw(_ request: String, halfClose: Bool = true) throws -> RawReply {
        let url = try GatewayClient().baseURL
        let text = String(
            decoding: try RawSocket.exchange(
                host: url.host ?? "127.0.0.1", port: url.port ?? 80,
                request: Array(request.utf8), halfClose: halfClose), as: UTF8.self)
        let (head, body) =
            text.range(of: "\r\n\r\n").map { (String(text[..<$0.lowerBound]), String(text[$0.upperBound...])) } ?? (
                text, ""
            )
        let lines = head.components(separatedBy: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        let contentType = lines.first { $0.lowercased().hasPrefix("content-type:") }.map {
            String($0.dropFirst(13)).trimmingCharacters(in: .whitespaces)
        }
        return RawReply(status: status, contentType: contentType, body: body)
    }

    func expectJSONMessage(_ reply: RawReply, status: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(reply.status == status, sourceLocation: sourceLocation)
        #expect(reply.contentType == "application/json", sourceLocation: sourceLocation)
        let keys = try JSONObject(Array(reply.body.utf8)).keys
        #expect(keys == ["message"], "\(reply.body)", sourceLocation: sourceLocation)
    }

    @Test func malformedRequestsAre400WithAMessage() throws {
        try expectJSONMessage(
            raw("GET /v1/posts/%00/comments HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), status: 400)
        try expectJSONMessage(raw("NOT A REQUEST LINE\r\n\r\n"), status: 400)
        let huge = String(repeating: "a", count: 10_000)  // over one 8 KB header buffer, sent at once
        try expectJSONMessage(
            raw("GET /v1/posts HTTP/1.1\r\nHost: x\r\nX-Big: \(huge)\r\nConnection: close\r\n\r\n"), status: 400)
    }

    @Test func anOverlongURIIs414WithAMessage() throws {
        let long = String(repeating: "a", count: 20_000)
        try expectJSONMessage(
            raw("GET /v1/posts?next=\(long) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), status: 414)
    }

    @Test func aBodyOverTheLimitIs400WithAMessage() throws {
        // Refused on the declared length alone, before any byte of the body is read.
        try expectJSONMessage(
            raw(
                "POST /v1/posts HTTP/1.1\r\nHost: x\r\nContent-Length: 40000000\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n",
                halfClose: false), status: 400)
        // The upload routes allow five videos of 10 MB (decision 0046), and no more.
        for route in ["/v1/posts/files", "/v1/chats/\(String(repeating: "a", count: 24))/files"] {
            let upload = try raw(
                "POST \(route) HTTP/1.1\r\nHost: x\r\nContent-Length: 70000000\r\nConnection: close\r\n\r\n",
                halfClose: false)
            try expectJSONMessage(upload, status: 400)
            #expect(upload.body.contains("upload larger than the limits allow"), "\(route)")
        }
    }
}

/// What cannot be provoked safely in a shared test stack (an upstream down or too slow, nginx's own failure) is
/// checked on the configuration: every error nginx can produce maps to a JSON location, and no location sets
/// `error_page` itself (one that did would drop all the inherited mappings, as nginx does not merge them).
@Suite("Gateway error pages")
struct GatewayErrorPagesTests {
    @Test func everyErrorOfNginxItselfMapsToAJSONAnswer() throws {
        let text = try String(contentsOf: GatewayRoutes.repositoryFile, encoding: .utf8)
        let mappings = text.split(separator: "\n").filter { $0.hasPrefix("error_page ") }
        let codes = Set(mappings.flatMap { $0.split(separator: " ").dropFirst().compactMap { Int($0) } })
        #expect(codes.isSuperset(of: [400, 404, 405, 413, 414, 494, 500, 502, 503, 504]))
        let indented = text.split(separator: "\n").filter {
            !$0.hasPrefix("error_page ") && $0.contains("error_page")
                && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#")
        }
        #expect(indented.isEmpty, "locations must not set error_page: \(indented)")
        for target in mappings.compactMap({ $0.split(separator: " ").last?.dropLast() }) {
            let line = text.split(separator: "\n").first { $0.hasPrefix("location = \(target) {") }
            #expect(line?.contains("internal;") == true, "\(target) is an internal location")
            #expect(line?.contains("default_type application/json;") == true, "\(target) answers JSON")
        }
    }
}
