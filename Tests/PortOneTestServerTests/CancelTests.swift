import Foundation
import HummingbirdTesting
import NIOCore
import PortOneTestServer
import Testing

@Suite struct CancelTests {
    @Test func fullCancelByImpUid() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 5000)
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            let response = try await client.cancel(
                ["imp_uid": payment.impUid, "reason": "price mismatch"], token: token)
            #expect(response.status == .ok)
            let envelope = try decode(Envelope<PortOnePayment>.self, response)
            #expect(envelope.code == 0)
            let cancelled = try #require(envelope.response)
            #expect(cancelled.status == .cancelled)
            #expect(cancelled.cancelAmount == 5000)
            #expect(cancelled.cancelledAt > 0)
            #expect(cancelled.cancelReason == "price mismatch")
        }
        let cancels = await ledger.cancels(of: payment.impUid)
        #expect(cancels.count == 1)
        #expect(cancels.first?.amount == 5000)
        #expect(cancels.first?.reason == "price mismatch")
        #expect(await ledger.payment(payment.impUid)?.status == .cancelled)
        #expect(await ledger.cancelRequests(of: payment.impUid) == 1)
    }

    @Test func cancelByMerchantUidWithFormBody() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-7", amount: 3000)
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            let response = try await client.executeRequest(
                uri: "/payments/cancel", method: .post,
                headers: [.authorization: token, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "merchant_uid=order-7&amount=3000&checksum=3000")
            )
            #expect(try decode(Envelope<PortOnePayment>.self, response).response?.status == .cancelled)
        }
        #expect(await ledger.cancels(of: payment.impUid).map(\.amount) == [3000])
    }

    @Test func partialCancelsAddUpToAFullCancel() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 10000)
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            let first = try decode(
                Envelope<PortOnePayment>.self,
                try await client.cancel(["imp_uid": payment.impUid, "amount": 4000], token: token)
            )
            #expect(first.response?.status == .paid)
            #expect(first.response?.cancelAmount == 4000)
            #expect(first.response?.cancelledAt == 0)

            let tooMuch = try decode(
                Envelope<Empty>.self,
                try await client.cancel(["imp_uid": payment.impUid, "amount": 7000], token: token)
            )
            #expect(tooMuch.code == 1)

            let rest = try decode(
                Envelope<PortOnePayment>.self,
                try await client.cancel(["imp_uid": payment.impUid, "amount": "6000"], token: token)
            )
            #expect(rest.response?.status == .cancelled)
            #expect(rest.response?.cancelAmount == 10000)
        }
        #expect(await ledger.cancels(of: payment.impUid).map(\.amount) == [4000, 6000])
    }

    @Test func alreadyCancelledIsCode1() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 5000)
        guard case .cancelled = await ledger.cancel(impUid: payment.impUid, merchantUid: nil) else {
            Issue.record("the first cancel should apply")
            return
        }
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            let response = try await client.cancel(["imp_uid": payment.impUid], token: token)
            #expect(response.status == .ok)
            let envelope = try decode(Envelope<Empty>.self, response)
            #expect(envelope.code == 1)
            #expect(envelope.message == "이미 전액취소된 주문입니다.")
            #expect(String(buffer: response.body).contains(#""response":null"#))
        }
        #expect(await ledger.cancels(of: payment.impUid).count == 1)
    }

    @Test func unknownPaymentIsCode1() async throws {
        let ledger = await makeLedger()
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            for body: [String: Any] in [["imp_uid": "imp_123456789012"], ["merchant_uid": "nope"], [:]] {
                let response = try await client.cancel(body, token: token)
                #expect(response.status == .ok)
                let envelope = try decode(Envelope<Empty>.self, response)
                #expect(envelope.code == 1)
                #expect(envelope.message == "취소할 결제건이 존재하지 않습니다.")
            }
        }
    }

    @Test func cancelNeedsAToken() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 5000)
        try await makeApp(ledger).test(.router) { client in
            let response = try await client.cancel(["imp_uid": payment.impUid], token: "not-a-token")
            #expect(response.status == .unauthorized)
        }
        #expect(await ledger.payment(payment.impUid)?.status == .paid)
    }

    @Test func checksumMismatchIsRefused() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 5000)
        let outcome = await ledger.cancel(impUid: payment.impUid, merchantUid: nil, amount: 1000, checksum: 4000)
        #expect(outcome == .rejected(message: PortOneCancelMessage.checksumMismatch))
        #expect(await ledger.cancels(of: payment.impUid).isEmpty)
    }
}
