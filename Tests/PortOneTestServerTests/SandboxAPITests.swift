import Foundation
import HummingbirdTesting
import NIOCore
import PortOneTestServer
import Testing

@Suite struct SandboxAPITests {
    @Test func roundTripThroughTheSandbox() async throws {
        let ledger = PortOneLedger()
        try await makeApp(ledger).test(.router) { client in
            let key = try await client.executeRequest(
                uri: "/__sandbox/keys", method: .post, headers: jsonHeaders,
                body: json(["imp_key": "k1", "imp_secret": "s1", "token_ttl": 60])
            )
            #expect(key.status == .ok)
            #expect(try bodyObject(key)["token_ttl"] as? Int == 60)

            // A payment whose amount differs from the post's price ("wrong amount") is just a payment.
            let created = try await client.executeRequest(
                uri: "/__sandbox/payments", method: .post, headers: jsonHeaders,
                body: json([
                    "merchant_uid": "order-5", "amount": 990, "imp_uid": "imp_111122223333",
                    "name": "Mug", "buyer_email": "b@example.com", "custom_data": ["post_id": "p5"],
                ])
            )
            #expect(created.status == .ok)
            let payment = try bodyObject(created)
            #expect(payment["imp_uid"] as? String == "imp_111122223333")
            #expect(payment["amount"] as? Int == 990)
            #expect(payment["status"] as? String == "paid")
            #expect(payment["custom_data"] as? String == #"{"post_id":"p5"}"#)
            #expect((payment["cancels"] as? [Any])?.isEmpty == true)

            let token = try await client.fetchToken(key: "k1", secret: "s1")
            #expect(try await client.lookup("imp_111122223333", token: token).status == .ok)
            let cancelled = try await client.cancel(["imp_uid": "imp_111122223333", "reason": "test"], token: token)
            #expect(try decode(Envelope<PortOnePayment>.self, cancelled).code == 0)

            let read = try bodyObject(
                try await client.executeRequest(
                    uri: "/__sandbox/payments/imp_111122223333", method: .get, headers: [:], body: nil)
            )
            #expect(read["status"] as? String == "cancelled")
            #expect(read["lookups"] as? Int == 1)
            #expect(read["cancel_requests"] as? Int == 1)
            let cancels = try #require(read["cancels"] as? [[String: Any]])
            #expect(cancels.count == 1)
            #expect(cancels.first?["amount"] as? Int == 990)
            #expect(cancels.first?["reason"] as? String == "test")
            #expect(cancels.first?["at"] is Int)

            let listed = try bodyObject(
                try await client.executeRequest(
                    uri: "/__sandbox/payments?merchant_uid=order-5", method: .get, headers: [:], body: nil)
            )
            #expect((listed["payments"] as? [Any])?.count == 1)

            let stats = try bodyObject(
                try await client.executeRequest(uri: "/__sandbox/stats", method: .get, headers: [:], body: nil))
            #expect((stats["token_requests"] as? [String: Int])?["k1"] == 1)
            #expect((stats["lookups"] as? [String: Int])?["imp_111122223333"] == 1)

            let missing = try await client.executeRequest(
                uri: "/__sandbox/payments/imp_nope", method: .get, headers: [:], body: nil)
            #expect(missing.status == .notFound)
        }
    }

    @Test func createPaymentValidatesItsBody() async throws {
        try await makeApp(PortOneLedger()).test(.router) { client in
            let response = try await client.executeRequest(
                uri: "/__sandbox/payments", method: .post, headers: jsonHeaders, body: json(["amount": 100])
            )
            #expect(response.status == .badRequest)
            #expect(try bodyObject(response)["error"] is String)
        }
    }

    @Test func otherStatusesCanBeCreated() async throws {
        let ledger = await makeLedger()
        try await makeApp(ledger).test(.router) { client in
            for status in ["ready", "failed", "cancelled"] {
                let created = try bodyObject(
                    try await client.executeRequest(
                        uri: "/__sandbox/payments", method: .post, headers: jsonHeaders,
                        body: json(["merchant_uid": "o-\(status)", "amount": 100, "status": status])
                    )
                )
                #expect(created["status"] as? String == status)
            }
        }
        #expect(await ledger.payment(merchantUid: "o-failed")?.failedAt ?? 0 > 0)
        #expect(await ledger.payment(merchantUid: "o-cancelled")?.cancelAmount == 100)
        #expect(await ledger.payment(merchantUid: "o-ready")?.paidAt == 0)
    }

    @Test func faultsOverHTTP() async throws {
        let ledger = await makeLedger()
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        try await makeApp(ledger).test(.router) { client in
            let armed = try await client.executeRequest(
                uri: "/__sandbox/faults", method: .post, headers: jsonHeaders,
                body: json(["target": "lookup", "imp_uid": payment.impUid, "kind": "error", "times": 2])
            )
            #expect(armed.status == .ok)
            #expect(try bodyObject(armed)["id"] is Int)
            let tokenFault = try await client.executeRequest(
                uri: "/__sandbox/faults", method: .post, headers: jsonHeaders,
                body: json(["target": "token", "imp_key": "someone_else", "kind": "slow", "delay_ms": 10])
            )
            #expect(tokenFault.status == .ok)

            let listed = try bodyObject(
                try await client.executeRequest(uri: "/__sandbox/faults", method: .get, headers: [:], body: nil))
            #expect((listed["faults"] as? [Any])?.count == 2)

            let token = try await client.fetchToken()
            #expect(try await client.lookup(payment.impUid, token: token).status == .internalServerError)

            let cleared = try await client.executeRequest(
                uri: "/__sandbox/faults", method: .delete, headers: [:], body: nil)
            #expect(cleared.status == .ok)
            #expect(try await client.lookup(payment.impUid, token: token).status == .ok)

            for bad: [String: Any] in [
                ["target": "lookup", "kind": "explode"],
                ["target": "nowhere", "kind": "error"],
                ["target": "lookup", "kind": "slow"],
                ["target": "lookup", "kind": "error", "times": 0],
            ] {
                let refused = try await client.executeRequest(
                    uri: "/__sandbox/faults", method: .post, headers: jsonHeaders, body: json(bad))
                #expect(refused.status == .badRequest)
            }
        }
        #expect(await ledger.armedFaults().isEmpty)
    }

    @Test func clockAdvanceExpiresTokens() async throws {
        let ledger = await makeLedger(tokenTTL: 120)
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        try await makeApp(ledger).test(.router) { client in
            let token = try await client.fetchToken()
            let advanced = try await client.executeRequest(
                uri: "/__sandbox/clock/advance", method: .post, headers: jsonHeaders, body: json(["seconds": 121])
            )
            #expect(advanced.status == .ok)
            #expect(try await client.lookup(payment.impUid, token: token).status == .unauthorized)
        }
    }

    @Test func resetForgetsPaymentsButKeepsKeys() async throws {
        let ledger = await makeLedger()
        await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        try await makeApp(ledger).test(.router) { client in
            #expect(
                try await client.executeRequest(uri: "/__sandbox/reset", method: .post, headers: [:], body: nil).status
                    == .ok)
            _ = try await client.fetchToken()
        }
        #expect(await ledger.allPayments().isEmpty)
    }
}
