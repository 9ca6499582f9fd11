import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PortOneTestServer
import Testing

@Suite struct PaymentLookupTests {
    @Test func lookupReturnsThePaymentObject() async throws {
        let ledger = await makeLedger()
        let created = await ledger.createPayment(
            merchantUid: "order-42", amount: 15000, name: "Sneakers", buyerEmail: "me@example.com",
            customData: #"{"post_id":"p1"}"#
        )
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            let response = try await client.lookup(created.impUid, token: token)
            #expect(response.status == .ok)
            let object = try bodyObject(response)
            #expect(object["code"] as? Int == 0)
            let payment = try #require(object["response"] as? [String: Any])
            #expect(payment["imp_uid"] as? String == created.impUid)
            #expect(payment["merchant_uid"] as? String == "order-42")
            #expect(payment["amount"] as? Int == 15000)
            #expect(payment["cancel_amount"] as? Int == 0)
            #expect(payment["currency"] as? String == "KRW")
            #expect(payment["status"] as? String == "paid")
            #expect(payment["name"] as? String == "Sneakers")
            #expect(payment["pay_method"] as? String == "card")
            #expect(payment["pg_provider"] as? String == "html5_inicis")
            #expect(payment["buyer_email"] as? String == "me@example.com")
            #expect(payment["custom_data"] as? String == #"{"post_id":"p1"}"#)
            #expect((payment["paid_at"] as? Int ?? 0) > 0)
            #expect(payment["cancelled_at"] as? Int == 0)
            #expect(payment["failed_at"] as? Int == 0)
            #expect(payment["buyer_name"] is NSNull)
            #expect(payment["pg_tid"] is String)
            #expect(payment["started_at"] is Int)

            let typed = try #require(try decode(Envelope<PortOnePayment>.self, response).response)
            #expect(typed == created)
        }
        #expect(await ledger.lookups(of: created.impUid) == 1)
    }

    @Test func generatedImpUidsLookReal() async throws {
        let ledger = PortOneLedger()
        let payment = await ledger.createPayment(merchantUid: "m", amount: 1)
        #expect(payment.impUid.hasPrefix("imp_"))
        #expect(payment.impUid.dropFirst(4).count == 12)
        #expect(payment.impUid.dropFirst(4).allSatisfy { $0.isNumber })
    }

    @Test func lookupWithoutTokenIs401() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        try await makeApp(ledger).test(.router) { client in
            for headers: HTTPFields in [[:], [.authorization: "Bearer nope"], [.authorization: ""]] {
                let response = try await client.executeRequest(
                    uri: "/payments/\(payment.impUid)", method: .get, headers: headers, body: nil
                )
                #expect(response.status == .unauthorized)
                let envelope = try decode(Envelope<Empty>.self, response)
                #expect(envelope.code == -1)
                #expect(envelope.message == "Unauthorized")
            }
        }
    }

    @Test func everyTokenHeaderSpellingIsAccepted() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            let spellings: [HTTPFields] = [
                [.authorization: "Bearer \(token)"],
                [.authorization: token],
                [HTTPField.Name("X-ImpTokenHeader")!: token],
            ]
            for headers in spellings {
                let response = try await client.executeRequest(
                    uri: "/payments/\(payment.impUid)", method: .get, headers: headers, body: nil
                )
                #expect(response.status == .ok)
            }
        }
    }

    @Test func unknownImpUidIs404() async throws {
        let ledger = await makeLedger()
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            let response = try await client.lookup("imp_000000000000", token: token)
            #expect(response.status == .notFound)
            let envelope = try decode(Envelope<Empty>.self, response)
            #expect(envelope.code == -1)
            #expect(envelope.message == "존재하지 않는 결제정보입니다.")
            #expect(String(buffer: response.body).contains(#""response":null"#))
        }
        #expect(await ledger.lookups(of: "imp_000000000000") == 1)
    }
}
