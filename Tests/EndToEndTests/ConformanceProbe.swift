import Foundation
import SNSPlatform
import SNSTestSupport
import Synchronization
import Testing

/// Talks to the stack through the gateway like `GatewayClient`, and checks **every** reply against
/// `docs/api/openapi.json` (each violation is a test issue), remembering which statuses each documented
/// operation answered so a test can insist it saw the success and the errors it meant to provoke.
final class ConformanceProbe: Sendable {
    let gateway: GatewayClient
    let validator: OpenAPIValidator
    private let answered = Mutex<[String: Set<Int>]>([:])

    /// Checks replies against `docs/api/openapi.json` (G1), or another document (`openapi-g0.json` for G0).
    init(validator: OpenAPIValidator? = nil) throws {
        gateway = try GatewayClient()
        self.validator = try validator ?? OpenAPIValidator.repositoryDocument()
    }

    /// Sends a request (JSON body if given), validates the reply, and expects `status`.
    @discardableResult
    func expect(
        _ status: Int, _ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:],
        withKey: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> GatewayClient.Reply {
        let reply = try await gateway.send(method, path, json: json, headers: headers, withKey: withKey)
        check(reply, method, path, expected: status, sourceLocation: sourceLocation)
        return reply
    }

    /// The same with a raw body (multipart forms, non-JSON bodies).
    @discardableResult
    func expect(
        _ status: Int, _ method: String, _ path: String, body: Data, contentType: String,
        headers: [String: String] = [:],
        withKey: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> GatewayClient.Reply {
        let reply = try await gateway.send(
            method, path, body: body, contentType: contentType, headers: headers, withKey: withKey)
        check(reply, method, path, expected: status, sourceLocation: sourceLocation)
        return reply
    }

    /// Sends and validates without expecting a particular status (polling until a read model caught up).
    func poll(
        _ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> GatewayClient.Reply {
        let reply = try await gateway.send(method, path, json: json, headers: headers)
        check(reply, method, path, expected: nil, sourceLocation: sourceLocation)
        return reply
    }

    private func check(
        _ reply: GatewayClient.Reply, _ method: String, _ path: String, expected: Int?, sourceLocation: SourceLocation
    ) {
        if let expected {
            #expect(
                reply.status == expected, "\(method) \(path) → \(reply.status) \(reply.text.prefix(300))",
                sourceLocation: sourceLocation)
        }
        for violation in validator.violations(method: method, path: path, reply: reply) {
            Issue.record(
                "OpenAPI violation: \(violation)\n  body: \(reply.text.prefix(500))", sourceLocation: sourceLocation)
        }
        if let operation = validator.operation(method: method, path: path) {
            answered.withLock { _ = $0[operation.operationId, default: []].insert(reply.status) }
        }
    }

    /// Expects every listed operation to have answered (at least) the listed statuses in this probe's calls.
    func expectAnswered(_ expected: [String: Set<Int>], sourceLocation: SourceLocation = #_sourceLocation) {
        let answered = answered.withLock { $0 }
        for (operationId, statuses) in expected.sorted(by: { $0.key < $1.key }) {
            let missing = statuses.subtracting(answered[operationId] ?? [])
            #expect(
                missing.isEmpty,
                "\(operationId) never answered \(missing.sorted()) (answered: \((answered[operationId] ?? []).sorted()))",
                sourceLocation: sourceLocation)
        }
    }

    // MARK: Accounts

    struct Account: Sendable {
        let userId: String
        let email: String
        let nick: String
        let token: String
        let refresh: String
        var auth: [String: String] { ["Authorization": token] }
    }

    /// Joins and logs in a fresh account (both calls validated).
    func signUp(_ prefix: String = "oa") async throws -> Account {
        let nick = TestEnvironment.unique(prefix)
        let email = "\(nick)@example.com"
        try await expect(
            200, "POST", "/v1/users/join", json: #"{"email":"\#(email)","password":"password123","nick":"\#(nick)"}"#)
        return try await logIn(email: email, nick: nick)
    }

    func logIn(email: String, nick: String) async throws -> Account {
        let login = try await expect(
            200, "POST", "/v1/users/login", json: #"{"email":"\#(email)","password":"password123"}"#)
        return Account(
            userId: try #require(try login.json.string("user_id")), email: email, nick: nick,
            token: try #require(try login.json.string("accessToken")),
            refresh: try #require(try login.json.string("refreshToken")))
    }

    /// An access token of the same session as `token`, signed with the stack's key, expired a minute ago.
    static func expiredToken(like token: String) async throws -> String {
        let verifier = try await AccessTokenVerifier(publicKeyPEM: try TestEnvironment.jwtPublicKeyPEM())
        guard case .valid(let user) = await verifier.verify(token) else { throw ProbeError("token does not verify") }
        let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())
        return try await signer.sign(
            AccessTokenClaims(
                userId: user.userId, sessionId: user.sessionId,
                issuedAt: Date().addingTimeInterval(-700), expiresAt: Date().addingTimeInterval(-60)))
    }

    /// The refresh-token session an access token belongs to.
    static func sessionId(of token: String) async throws -> String {
        let verifier = try await AccessTokenVerifier(publicKeyPEM: try TestEnvironment.jwtPublicKeyPEM())
        guard case .valid(let user) = await verifier.verify(token), let session = user.sessionId else {
            throw ProbeError("token does not verify or names no session")
        }
        return session
    }

    struct ProbeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// A `multipart/form-data` body: text fields and files, as Alamofire builds them.
struct MultipartForm {
    let boundary = "sns-oa-\(UUID().uuidString)"
    private(set) var body = Data()

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func field(_ name: String, _ value: String) {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }

    mutating func file(_ name: String, filename: String, mimeType: String, bytes: [UInt8]) {
        body.append(
            Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(mimeType)\r\n\r\n"
                    .utf8))
        body.append(contentsOf: bytes)
        body.append(Data("\r\n".utf8))
    }

    func finished() -> Data {
        body + Data("--\(boundary)--\r\n".utf8)
    }
}
