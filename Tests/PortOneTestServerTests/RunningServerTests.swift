import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PortOneTestServer
import Testing

/// The in-process server on a real socket, called with AsyncHTTPClient as the market service does.
@Suite struct RunningServerTests {
    struct Answer {
        var status: Int
        var body: [String: Any]
    }

    func call(
        _ method: HTTPMethod, _ url: String, token: String? = nil, body: [String: Any]? = nil,
        timeout: TimeAmount = .seconds(60)  // a hang guard: the whole suite loads the machine
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body { request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body))) }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let buffer = try await response.body.collect(upTo: 1 << 20)
        let object = try JSONSerialization.jsonObject(with: Data(String(buffer: buffer).utf8)) as? [String: Any]
        return Answer(status: Int(response.status.code), body: object ?? [:])
    }

    func token(_ base: URL) async throws -> String {
        let answer = try await call(
            .POST, "\(base)/users/getToken", body: ["imp_key": testKey, "imp_secret": testSecret])
        #expect(answer.status == 200)
        return try #require((answer.body["response"] as? [String: Any])?["access_token"] as? String)
    }

    @Test func withRunningServerServesRealHTTP() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 7000)
        let port = try await PortOneTestServer.withRunningServer(ledger: ledger) { base in
            #expect(base.absoluteString.hasPrefix("http://127.0.0.1:"))
            let token = try await token(base)
            let lookup = try await call(.GET, "\(base)/payments/\(payment.impUid)", token: token)
            #expect(lookup.status == 200)
            #expect((lookup.body["response"] as? [String: Any])?["amount"] as? Int == 7000)
            let cancel = try await call(
                .POST, "\(base)/payments/cancel", token: token, body: ["imp_uid": payment.impUid])
            #expect(cancel.body["code"] as? Int == 0)
            return try #require(base.port)
        }
        #expect(await ledger.payment(payment.impUid)?.status == .cancelled)
        // The server is gone once the helper returned.
        await #expect(throws: (any Error).self) {
            _ = try await call(.POST, "http://127.0.0.1:\(port)/users/getToken", body: [:], timeout: .milliseconds(300))
        }
    }

    @Test func bodyErrorsPropagateAndTheServerStillStops() async throws {
        struct Boom: Error {}
        let ledger = await makeLedger()
        await #expect(throws: Boom.self) {
            try await PortOneTestServer.withRunningServer(ledger: ledger) { _ in throw Boom() }
        }
    }

    @Test func dropClosesTheConnectionWithoutAnswer() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        await ledger.addFault(.lookup(payment.impUid, .drop(afterMilliseconds: 0), times: 1))
        await ledger.addFault(.token(testKey, .drop(afterMilliseconds: 0), times: 1))
        try await PortOneTestServer.withRunningServer(ledger: ledger) { base in
            await #expect(throws: HTTPClientError.self) {
                _ = try await call(
                    .POST, "\(base)/users/getToken", body: ["imp_key": testKey, "imp_secret": testSecret])
            }
            let token = try await token(base)
            await #expect(throws: HTTPClientError.self) {
                _ = try await call(.GET, "\(base)/payments/\(payment.impUid)", token: token)
            }
            let retried = try await call(.GET, "\(base)/payments/\(payment.impUid)", token: token)
            #expect(retried.status == 200)
        }
        #expect(await ledger.lookups(of: payment.impUid) == 2)
        #expect(await ledger.tokenRequests(for: testKey) == 2)
    }

    @Test func slowAndErrorFaultsOverRealHTTP() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        await ledger.addFault(.cancel(payment.impUid, .error(status: 500), times: 1))
        await ledger.addFault(.cancel(payment.impUid, .slow(delayMilliseconds: 30), times: 1))
        try await PortOneTestServer.withRunningServer(ledger: ledger) { base in
            let token = try await token(base)
            let failed = try await call(
                .POST, "\(base)/payments/cancel", token: token, body: ["imp_uid": payment.impUid])
            #expect(failed.status == 500)
            #expect(failed.body["message"] as? String == "Internal Server Error")
            let slow = try await call(.POST, "\(base)/payments/cancel", token: token, body: ["imp_uid": payment.impUid])
            #expect(slow.status == 200)
            #expect((slow.body["response"] as? [String: Any])?["status"] as? String == "cancelled")
        }
    }

    @Test func webhookURLOptionBecomesTheDefault() async throws {
        try await withWebhookReceiver { receiver, inbox in
            let ledger = await makeLedger()
            try await PortOneTestServer.withRunningServer(ledger: ledger, webhookURL: "\(receiver)/hook") { base in
                let created = try await call(
                    .POST, "\(base)/__sandbox/payments",
                    body: ["merchant_uid": "order-8", "amount": 800, "webhook": true]
                )
                #expect((created.body["webhook"] as? [String: Any])?["status"] as? Int == 200)
            }
            #expect(await inbox.received.first?.body["merchant_uid"] == "order-8")
        }
    }

    @Test func concurrentCallsAreSafe() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 10000)
        try await PortOneTestServer.withRunningServer(ledger: ledger) { base in
            let token = try await token(base)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        let answer = try await call(
                            .POST, "\(base)/payments/cancel", token: token,
                            body: ["imp_uid": payment.impUid, "amount": 1000]
                        )
                        return answer.body["code"] as? Int ?? -99
                    }
                    group.addTask { try await call(.GET, "\(base)/payments/\(payment.impUid)", token: token).status }
                }
                for try await _ in group {}
            }
        }
        let final = try #require(await ledger.payment(payment.impUid))
        #expect(final.cancelAmount == 10000)
        #expect(final.status == .cancelled)
        #expect(await ledger.cancels(of: payment.impUid).count == 10)
        #expect(await ledger.lookups(of: payment.impUid) == 10)
    }
}
