import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PortOneTestServer
import Testing

let testKey = "test_imp_key"
let testSecret = "test_imp_secret"

/// A ledger with the test key pair registered.
func makeLedger(tokenTTL: Int = 1800) async -> PortOneLedger {
    let ledger = PortOneLedger()
    await ledger.addKey(testKey, secret: testSecret, tokenTTL: tokenTTL)
    return ledger
}

func makeApp(_ ledger: PortOneLedger) -> some ApplicationProtocol {
    var logger = Logger(label: "portone-test-server-tests")
    logger.logLevel = .warning
    return PortOneTestServer.makeApplication(ledger: ledger, host: "127.0.0.1", port: 0, logger: logger)
}

/// iamport's envelope as a client decodes it.
struct Envelope<Payload: Decodable>: Decodable {
    var code: Int
    var message: String?
    var response: Payload?
}

struct Empty: Decodable {}

struct TokenPayload: Decodable {
    var access_token: String
    var now: Int
    var expired_at: Int
}

func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
    try JSONDecoder().decode(T.self, from: Data(String(buffer: response.body).utf8))
}

func json(_ object: [String: Any]) -> ByteBuffer {
    ByteBuffer(bytes: try! JSONSerialization.data(withJSONObject: object))
}

func bodyObject(_ response: TestResponse) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8))
    return try #require(value as? [String: Any])
}

let jsonHeaders: HTTPFields = [.contentType: "application/json"]

func bearer(_ token: String) -> HTTPFields {
    [.authorization: "Bearer \(token)", .contentType: "application/json"]
}

extension TestClientProtocol {
    /// `POST /users/getToken` with the test key pair; returns the access token.
    func fetchToken(key: String = testKey, secret: String = testSecret) async throws -> String {
        let response = try await executeRequest(
            uri: "/users/getToken", method: .post, headers: jsonHeaders,
            body: json(["imp_key": key, "imp_secret": secret])
        )
        #expect(response.status == .ok)
        return try #require(try decode(Envelope<TokenPayload>.self, response).response?.access_token)
    }

    func lookup(_ impUid: String, token: String?) async throws -> TestResponse {
        try await executeRequest(
            uri: "/payments/\(impUid)", method: .get, headers: token.map(bearer) ?? [:], body: nil
        )
    }

    func cancel(_ body: [String: Any], token: String) async throws -> TestResponse {
        try await executeRequest(uri: "/payments/cancel", method: .post, headers: bearer(token), body: json(body))
    }
}
