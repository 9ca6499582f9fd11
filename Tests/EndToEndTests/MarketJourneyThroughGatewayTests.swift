import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// SnapBook's used-book market through nginx and the real auth, posts and market processes, with the stack's
/// PortOne test server as the PG: a seller lists a book with a price → a buyer pays (the iamport SDK's part is
/// played by the test server's sandbox) → the app validates `imp_uid` → history → the post shows the buyer;
/// PortOne's webhook after the call changes nothing; a forged amount is refunded; a webhook alone completes a
/// purchase whose payment names its buyer and post.
@Suite("Market journey through the gateway")
struct MarketJourneyThroughGatewayTests {
    struct Account { let userId: String; let token: String }

    func account(_ gateway: GatewayClient) async throws -> Account {
        let name = TestEnvironment.unique("mk")
        let joined = try await gateway.send(
            "POST", "/v1/users/join",
            json: #"{"email":"\#(name)@example.com","password":"password123","nick":"\#(name)"}"#)
        #expect(joined.status == 200, "\(joined.text)")
        let login = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"\#(name)@example.com","password":"password123"}"#)
        return Account(
            userId: try #require(try login.json.string("user_id")),
            token: try #require(try login.json.string("accessToken")))
    }

    /// What the iamport SDK leaves behind after the buyer paid: a payment at PortOne, and its imp_uid.
    func pay(_ sandbox: GatewayClient, amount: Int, customData: String? = nil, webhook: Bool = false) async throws
        -> String
    {
        let merchantUid =
            "ios_\(try TestEnvironment.apiKey())_\(Int(Date().timeIntervalSince1970 * 1000))_\(TestEnvironment.unique(""))"
        var body: [String: Any] = ["merchant_uid": merchantUid, "amount": amount, "name": "중고 책", "webhook": webhook]
        if let customData { body["custom_data"] = customData }
        let created = try await sandbox.send(
            "POST", "/__sandbox/payments",
            json: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        #expect(created.status == 200, "\(created.text)")
        return try #require(try created.json.string("imp_uid"))
    }

    @Test func listPayValidateHistoryBuyersWebhookAndForgery() async throws {
        let gateway = try GatewayClient()
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let seller = try await account(gateway)
        let buyer = try await account(gateway)
        let asBuyer = ["Authorization": buyer.token]

        let created = try await gateway.send(
            "POST", "/v1/posts",
            json: #"""
                {"title":"클린 코드","content":"거의 새 책 #중고책","product_id":"snapBook_market","price":15000}
                """#, headers: ["Authorization": seller.token])
        #expect(created.status == 200, "\(created.text)")
        let postId = try #require(try created.json.string("post_id"))

        // The market learns of the post from its post-created event; until then it answers 410. A validation of
        // an imp_uid PortOne does not know turns from 410 into 400 once the post is known.
        let probe = #"{"imp_uid":"imp_probe_\#(TestEnvironment.unique(""))","post_id":"\#(postId)"}"#
        try await eventually("the market knows the post") {
            try await gateway.send("POST", "/v1/payments/validation", json: probe, headers: asBuyer).status == 400
        }

        // The buyer pays 15,000 and the app validates.
        let impUid = try await pay(sandbox, amount: 15000)
        let validation = #"{"imp_uid":"\#(impUid)","post_id":"\#(postId)"}"#
        let reply = try await gateway.send("POST", "/v1/payments/validation", json: validation, headers: asBuyer)
        #expect(reply.status == 200, "\(reply.text)")
        let keys = try reply.json.keys
        #expect(keys == ["payment_id", "buyer_id", "post_id", "merchant_uid", "productName", "price", "paidAt"])
        let payment = try reply.decode(APIModels.Payment.self)
        #expect(payment.buyerId == buyer.userId)
        #expect(payment.productName == "클린 코드")
        #expect(payment.price == 15000)

        // History, newest first.
        let history = try await gateway.send("GET", "/v1/payments/me", headers: asBuyer)
        #expect(history.status == 200)
        #expect(try history.decode(APIModels.PaymentList.self).data.map(\.paymentId) == [payment.paymentId])

        // The post shows its buyer (posts consumes purchase-completed).
        try await eventually("the post lists its buyer") {
            let post = try await gateway.send("GET", "/v1/posts/\(postId)", headers: asBuyer)
            return (try? post.decode(APIModels.Post.self))?.buyers.contains(buyer.userId) == true
        }

        // PortOne's webhook for it arrives after the app's call (delivered through the gateway, without
        // SesacKey): it is accepted and changes nothing. The app validating again gets 409.
        let delivered = try await sandbox.send("POST", "/__sandbox/payments/\(impUid)/webhook", json: "{}")
        #expect(delivered.status == 200, "\(delivered.text)")
        #expect(try delivered.json["status"] as? Int == 200, "\(delivered.text)")
        #expect(
            try await gateway.send("POST", "/v1/payments/validation", json: validation, headers: asBuyer).status == 409)
        let again = try await gateway.send("GET", "/v1/payments/me", headers: asBuyer)
        #expect(try again.decode(APIModels.PaymentList.self).data.count == 1)

        // A forged amount: 400, and PortOne shows the payment cancelled.
        let forged = try await pay(sandbox, amount: 150)
        let refused = try await gateway.send(
            "POST", "/v1/payments/validation",
            json: #"{"imp_uid":"\#(forged)","post_id":"\#(postId)","productName":"클린 코드","price":150}"#,
            headers: asBuyer)
        #expect(refused.status == 400, "\(refused.text)")
        let forgedAtPortOne = try await sandbox.send("GET", "/__sandbox/payments/\(forged)")
        #expect(try forgedAtPortOne.json.string("status") == "cancelled")

        // A payment that names its buyer and post in custom_data is completed by PortOne's webhook alone.
        let other = try await account(gateway)
        let byWebhook = try await pay(
            sandbox, amount: 15000, customData: #"{"post_id":"\#(postId)","buyer_id":"\#(other.userId)"}"#,
            webhook: true)
        try await eventually("the webhook recorded the purchase") {
            let otherHistory = try await gateway.send("GET", "/v1/payments/me", headers: ["Authorization": other.token])
            return (try? otherHistory.decode(APIModels.PaymentList.self))?.data.first?.postId == postId
        }
        // …and its app, validating late, gets the 200 once.
        let late = try await gateway.send(
            "POST", "/v1/payments/validation",
            json: #"{"imp_uid":"\#(byWebhook)","post_id":"\#(postId)"}"#, headers: ["Authorization": other.token])
        #expect(late.status == 200, "\(late.text)")
        try await eventually("the post lists both buyers") {
            let post = try await gateway.send("GET", "/v1/posts/\(postId)", headers: asBuyer)
            let buyers = (try? post.decode(APIModels.Post.self))?.buyers ?? []
            return Set(buyers).isSuperset(of: [buyer.userId, other.userId])
        }
    }
}
