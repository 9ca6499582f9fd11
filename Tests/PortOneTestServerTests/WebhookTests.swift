import Foundation
import HummingbirdTesting
import NIOCore
import PortOneTestServer
import Testing

@Suite struct WebhookTests {
    @Test func ledgerDeliversToTheDefaultURL() async throws {
        try await withWebhookReceiver { base, inbox in
            let ledger = PortOneLedger(defaultWebhookURL: "\(base)/hook")
            let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
            let status = try await ledger.deliverWebhook(impUid: payment.impUid)
            #expect(status == 200)
            let received = await inbox.received
            #expect(received.count == 1)
            #expect(received.first?.contentType?.hasPrefix("application/json") == true)
            #expect(received.first?.body == ["imp_uid": payment.impUid, "merchant_uid": "order-1", "status": "paid"])
            let deliveries = await ledger.webhookDeliveries()
            #expect(deliveries.count == 1)
            #expect(deliveries.first?.httpStatus == 200)
        }
    }

    @Test func receiverStatusIsReportedEvenWhenItFails() async throws {
        try await withWebhookReceiver { base, _ in
            let ledger = PortOneLedger()
            let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
            let status = try await ledger.deliverWebhook(impUid: payment.impUid, to: "\(base)/reject")
            #expect(status == 500)
        }
    }

    @Test func deliveryErrorsAreClear() async throws {
        let ledger = PortOneLedger()
        await #expect(throws: PortOneWebhookError.unknownPayment(impUid: "imp_x")) {
            try await ledger.deliverWebhook(impUid: "imp_x", to: "http://127.0.0.1:1/hook", timeout: .milliseconds(300))
        }
        let payment = await ledger.createPayment(merchantUid: "order-1", amount: 1000)
        await #expect(throws: PortOneWebhookError.noWebhookURL) {
            try await ledger.deliverWebhook(impUid: payment.impUid)
        }
        do {
            try await ledger.deliverWebhook(
                impUid: payment.impUid, to: "http://127.0.0.1:1/hook", timeout: .milliseconds(300))
            Issue.record("delivery to a closed port should fail")
        } catch {
            guard case .transport(let url, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(url == "http://127.0.0.1:1/hook")
        }
        #expect(await ledger.webhookDeliveries().first?.error != nil)
    }

    @Test func sandboxTriggersDeliveryWithOverrides() async throws {
        try await withWebhookReceiver { base, inbox in
            let ledger = PortOneLedger(defaultWebhookURL: "\(base)/hook")
            try await makeApp(ledger).test(.router) { client in
                let created = try bodyObject(
                    try await client.executeRequest(
                        uri: "/__sandbox/payments", method: .post, headers: jsonHeaders,
                        body: json([
                            "merchant_uid": "order-3", "amount": 500, "imp_uid": "imp_000000000003", "webhook": true,
                        ])
                    )
                )
                let auto = try #require(created["webhook"] as? [String: Any])
                #expect(auto["status"] as? Int == 200)
                #expect(auto["delivered_to"] as? String == "\(base)/hook")

                let forged = try await client.executeRequest(
                    uri: "/__sandbox/payments/imp_000000000003/webhook", method: .post, headers: jsonHeaders,
                    body: json(["url": "\(base)/reject", "status": "cancelled"])
                )
                #expect(forged.status == .ok)
                let result = try bodyObject(forged)
                #expect(result["delivered_to"] as? String == "\(base)/reject")
                #expect(result["status"] as? Int == 500)

                let unknown = try await client.executeRequest(
                    uri: "/__sandbox/payments/imp_nope/webhook", method: .post, headers: [:], body: nil
                )
                #expect(unknown.status == .notFound)
                let refused = try await client.executeRequest(
                    uri: "/__sandbox/payments/imp_000000000003/webhook", method: .post, headers: jsonHeaders,
                    body: json(["url": "http://127.0.0.1:1/hook", "timeout_ms": 300])
                )
                #expect(refused.status == .badGateway)
                #expect(try bodyObject(refused)["error"] is String)
            }
            let received = await inbox.received
            #expect(received.map(\.path) == ["hook", "reject"])
            #expect(received.last?.body["status"] == "cancelled")
        }
    }
}
