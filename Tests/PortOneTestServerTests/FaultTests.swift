import Foundation
import HummingbirdTesting
import NIOCore
import PortOneTestServer
import Testing

@Suite struct FaultTests {
    @Test func errorTwiceThenSuccessOnLookup() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        await ledger.addFault(.lookup(payment.impUid, .error(status: 500), times: 2))
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            for _ in 0..<2 {
                let failed = try await client.lookup(payment.impUid, token: token)
                #expect(failed.status == .internalServerError)
                #expect(
                    String(buffer: failed.body) == #"{"code":-1,"message":"Internal Server Error","response":null}"#)
            }
            let ok = try await client.lookup(payment.impUid, token: token)
            #expect(ok.status == .ok)
            #expect(try decode(Envelope<PortOnePayment>.self, ok).response?.impUid == payment.impUid)
        }
        #expect(await ledger.lookups(of: payment.impUid) == 3)
        #expect(await ledger.armedFaults().isEmpty)
    }

    @Test func faultsOnlyHitTheirScope() async throws {
        let ledger = await makeLedger()
        let faulty = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        let healthy = await ledger.createPayment(merchantUid: "order-2", amount: 1000)
        await ledger.addFault(.lookup(faulty.impUid, .error(status: 502), times: 1))
        await ledger.addFault(.token("some_other_key", .error(status: 500)))
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            #expect(try await client.lookup(healthy.impUid, token: token).status == .ok)
            let failed = try await client.lookup(faulty.impUid, token: token)
            #expect(failed.status == .badGateway)
            #expect(try decode(Envelope<Empty>.self, failed).message == "Bad Gateway")
            #expect(try await client.lookup(faulty.impUid, token: token).status == .ok)
        }
    }

    @Test func tokenErrorWithStatusThenSuccess() async throws {
        let ledger = await makeLedger()
        await ledger.addFault(.token(testKey, .error(status: 503), times: 1))
        try await makeApp(ledger).test(.router) { client in
            let failed = try await client.executeRequest(
                uri: "/users/getToken", method: .post, headers: jsonHeaders,
                body: json(["imp_key": testKey, "imp_secret": testSecret])
            )
            #expect(failed.status == .serviceUnavailable)
            #expect(try decode(Envelope<Empty>.self, failed).code == -1)
            _ = try await client.fetchToken()
        }
        #expect(await ledger.tokenRequests(for: testKey) == 2)
    }

    @Test func cancelErrorDoesNotCancel() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-9", amount: 2000)
        await ledger.addFault(.cancel(payment.impUid, .error(status: 500), times: 1))
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            // Named by merchant_uid only: the fault still matches through the payment it resolves to.
            let failed = try await client.cancel(["merchant_uid": "order-9"], token: token)
            #expect(failed.status == .internalServerError)
            #expect(await ledger.payment(payment.impUid)?.status == .paid)
            let ok = try await client.cancel(["merchant_uid": "order-9"], token: token)
            #expect(try decode(Envelope<PortOnePayment>.self, ok).response?.status == .cancelled)
        }
        #expect(await ledger.cancelRequests(of: payment.impUid) == 2)
        #expect(await ledger.cancels(of: payment.impUid).count == 1)
    }

    @Test func faultWithoutTimesLastsUntilCleared() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        await ledger.addFault(.lookup(nil, .error(status: 500)))
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            for _ in 0..<3 {
                #expect(try await client.lookup(payment.impUid, token: token).status == .internalServerError)
            }
            await ledger.clearFaults()
            #expect(try await client.lookup(payment.impUid, token: token).status == .ok)
        }
    }

    @Test func slowFaultStillAnswersCorrectly() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        await ledger.addFault(.lookup(payment.impUid, .slow(delayMilliseconds: 50), times: 1))
        await ledger.addFault(.token(testKey, .slow(delayMilliseconds: 20), times: 1))
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            let response = try await client.lookup(payment.impUid, token: token)
            #expect(response.status == .ok)
            #expect(try decode(Envelope<PortOnePayment>.self, response).response == payment)
        }
        #expect(await ledger.armedFaults().isEmpty)
    }

    @Test func firstArmedMatchingFaultWins() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        await ledger.addFault(.lookup(payment.impUid, .error(status: 500), times: 1))
        await ledger.addFault(.lookup(nil, .error(status: 503), times: 1))
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            #expect(try await client.lookup(payment.impUid, token: token).status == .internalServerError)
            #expect(try await client.lookup(payment.impUid, token: token).status == .serviceUnavailable)
            #expect(try await client.lookup(payment.impUid, token: token).status == .ok)
        }
    }
}
