import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PortOneTestServer
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

@testable import MarketService

/// One in-process market service on a private schema, talking to its own in-process PortOne test server
/// (so every test has its own payments, tokens and faults). The product read model is filled directly
/// (`product(...)`); the consumer that fills it from events is covered by the journey through the gateway.
struct MarketHarness: Sendable {
    let client: any TestClientProtocol
    let reverifier: PaymentReverifier
    let ledger: PortOneLedger
    let postgres: DatabasePool
    let schema: SQLIdentifier
    let signer: AccessTokenSigner
    let apiKey: String

    static let impKey = "market_test_key"
    static let impSecret = "market_test_secret"

    struct Options: Sendable {
        /// Attempts per PortOne call.
        var attempts = 3
        var timeout: Duration = .seconds(5)
        /// PortOne at an address where nothing listens (PG down), instead of the test server.
        var unreachablePortOne = false
        var tokenTTL = 1800
        /// Run the product read-model consumer (a private group reading the topics from the beginning) instead of
        /// filling the read model directly.
        var consumesEvents = false
        /// Seconds after which the re-verifier gives a claim up (0: at its next round).
        var claimMaxAge: TimeInterval = 86_400
    }

    static func run(_ options: Options = Options(), _ body: @Sendable (MarketHarness) async throws -> Void) async throws
    {
        let ledger = PortOneLedger()
        await ledger.addKey(impKey, secret: impSecret, tokenTTL: options.tokenTTL)
        try await PortOneTestServer.withRunningServer(ledger: ledger) { baseURL in
            let schema = try SQLIdentifier(TestEnvironment.unique("market_"))
            var configuration = MarketConfiguration(
                platform: try TestEnvironment.platformConfiguration(serviceName: "market"),
                portOneURL: options.unreachablePortOne ? "http://127.0.0.1:9" : baseURL.absoluteString,
                impKey: impKey, impSecret: impSecret)
            configuration.schema = schema.name
            configuration.consumesEvents = options.consumesEvents
            configuration.runsReverifier = false
            configuration.portOneAttempts = options.attempts
            configuration.portOneTimeout = options.timeout
            configuration.portOneRetryBase = .milliseconds(10)
            configuration.claimMaxAge = options.claimMaxAge
            let market = try await buildApplicationAndParts(
                configuration: configuration, logger: TestEnvironment.logger)
            let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())
            let apiKey = try TestEnvironment.apiKey()
            try await market.application.test(.router) { client in
                try await body(
                    MarketHarness(
                        client: client, reverifier: market.reverifier, ledger: ledger, postgres: market.postgres,
                        schema: schema, signer: signer, apiKey: apiKey))
            }
        }
    }

    /// One re-verification round, as the background worker runs it (`asOf`: treat retries scheduled before it as due).
    func reverifyOnce(asOf: Date) async throws -> PaymentReverifier.Report {
        try await reverifier.runOnce(asOf: asOf)
    }

    // MARK: Fixtures

    struct Buyer: Sendable {
        let userId: String
        let token: String
    }

    func buyer() async throws -> Buyer {
        let userId = ObjectID.generate()
        let now = Date()
        let token = try await signer.sign(
            AccessTokenClaims(userId: userId, sessionId: nil, issuedAt: now, expiresAt: now.addingTimeInterval(600)))
        return Buyer(userId: userId, token: token)
    }

    /// A post in the market's read model (as the consumer would have written it).
    @discardableResult
    func product(price: Int?, title: String? = "중고 책", deleted: Bool = false, seller: String = ObjectID.generate())
        async throws -> String
    {
        let postId = ObjectID.generate()
        let deletedAt: Date? = deleted ? Date() : nil
        try await postgres.query(
            """
            INSERT INTO \(table: schema, "products") (post_id, seller_id, product_id, title, price, updated_at, deleted_at)
            VALUES (\(postId), \(seller), 'snapBook_market', \(title), \(price), now(), \(deletedAt))
            """, logger: TestEnvironment.logger)
        return postId
    }

    /// A payment as if the buyer had just paid in the iamport SDK.
    func paid(_ amount: Int, status: PortOnePaymentStatus = .paid, customData: String? = nil) async throws -> String {
        let merchantUid = "ios_\(apiKey)_\(Int(Date().timeIntervalSince1970 * 1000))_\(TestEnvironment.unique(""))"
        return await ledger.createPayment(
            merchantUid: merchantUid, amount: amount, status: status, name: "중고 책", customData: customData
        ).impUid
    }

    // MARK: HTTP

    typealias Reply = TestReply

    func send(
        _ method: HTTPRequest.Method, _ path: String, as buyer: Buyer?, json: String? = nil, apiKey: Bool = true,
        contentType: String = "application/json"
    ) async throws -> Reply {
        try await client.send(
            AppRequest(
                method, path, apiKey: apiKey ? self.apiKey : nil, token: buyer?.token, json: json,
                contentType: json == nil ? nil : contentType))
    }

    func validate(_ impUid: String, post postId: String, as buyer: Buyer, legacyBody: Bool = false) async throws
        -> Reply
    {
        let json =
            legacyBody
            ? #"{"imp_uid":"\#(impUid)","post_id":"\#(postId)","productName":"클라이언트 이름","price":1}"#
            : #"{"imp_uid":"\#(impUid)","post_id":"\#(postId)"}"#
        return try await send(.post, "/v1/payments/validation", as: buyer, json: json)
    }

    func webhook(_ impUid: String, status: String = "paid") async throws -> Reply {
        try await send(
            .post, "/v1/payments/webhook", as: nil,
            json: #"{"imp_uid":"\#(impUid)","merchant_uid":"whatever","status":"\#(status)"}"#, apiKey: false)
    }

    // MARK: Database

    func count(_ query: PostgresQuery) async throws -> Int {
        for try await value in try await postgres.query(query, logger: TestEnvironment.logger).decode(Int.self) {
            return value
        }
        return 0
    }

    func payments(impUid: String) async throws -> Int {
        try await count("SELECT count(*)::int FROM \(table: schema, "payments") WHERE imp_uid = \(impUid)")
    }

    /// purchase-completed rows in this schema's outbox for `impUid`.
    func purchaseEvents(impUid: String) async throws -> Int {
        try await count(
            """
            SELECT count(*)::int FROM \(table: schema, "outbox")
            WHERE event_type = 'purchase-completed' AND payload->'payload'->>'imp_uid' = \(impUid)
            """)
    }

    /// Whether this market's consumer has applied the event `eventId`.
    func processed(_ eventId: UUID) async throws -> Bool {
        try await count("SELECT count(*)::int FROM \(table: schema, "processed_events") WHERE event_id = \(eventId)")
            == 1
    }

    func price(of postId: String) async throws -> Int? {
        let rows = try await postgres.query(
            "SELECT price FROM \(table: schema, "products") WHERE post_id = \(postId)",
            logger: TestEnvironment.logger)
        for try await price in rows.decode(Int?.self) { return price }
        return nil
    }

    func claimState(_ impUid: String) async throws -> String? {
        let rows = try await postgres.query(
            "SELECT state FROM \(table: schema, "claims") WHERE imp_uid = \(impUid)", logger: TestEnvironment.logger)
        for try await state in rows.decode(String.self) { return state }
        return nil
    }

    func cancelState(_ impUid: String) async throws -> String? {
        let rows = try await postgres.query(
            "SELECT cancel_state FROM \(table: schema, "rejections") WHERE imp_uid = \(impUid)",
            logger: TestEnvironment.logger)
        for try await state in rows.decode(String.self) { return state }
        return nil
    }
}
