import Hummingbird

/// The sandbox API under `/__sandbox/`: configures the ledger over HTTP for the local stack and end-to-end
/// tests. It has NO authentication by design — this is a test server; never expose it beyond loopback or a
/// private test network.
struct SandboxRoutes: Sendable {
    let ledger: PortOneLedger

    func add(to router: Router<PortOneRequestContext>) {
        let sandbox = router.group("/__sandbox")
        sandbox.get("/health") { _, _ in JSONResponse.make(["status": "ok"]) }
        sandbox.post("/reset") { _, _ in
            await self.ledger.reset()
            return JSONResponse.make(["reset": true])
        }
        sandbox.post("/keys") { request, context in try await self.addKey(request, context) }
        sandbox.post("/keys/{imp_key}/expire-tokens") { _, context in
            let impKey = context.parameters.get("imp_key") ?? ""
            let revoked = await self.ledger.expireTokens(of: impKey)
            context.logger.info("sandbox: tokens expired", metadata: ["imp_key": "\(impKey)", "revoked": "\(revoked)"])
            return JSONResponse.make(ExpiredTokens(impKey: impKey, revoked: revoked))
        }
        sandbox.post("/payments") { request, context in try await self.createPayment(request, context) }
        sandbox.get("/payments") { request, _ in
            let merchantUid = request.uri.queryParameters.get("merchant_uid")
            var views: [SandboxPaymentView] = []
            for payment in await self.ledger.allPayments()
            where merchantUid == nil || payment.merchantUid == merchantUid {
                views.append(await self.view(of: payment))
            }
            return JSONResponse.make(["payments": views])
        }
        sandbox.get("/payments/{imp_uid}") { _, context in
            let impUid = context.parameters.get("imp_uid") ?? ""
            guard let payment = await self.ledger.payment(impUid) else {
                return JSONResponse.make(SandboxError(error: "no payment \(impUid)"), status: .notFound)
            }
            return JSONResponse.make(await self.view(of: payment))
        }
        sandbox.post("/payments/{imp_uid}/webhook") { request, context in
            try await self.deliverWebhook(request, context)
        }
        sandbox.post("/faults") { request, context in try await self.addFault(request, context) }
        sandbox.get("/faults") { _, _ in
            JSONResponse.make(["faults": await self.ledger.armedFaults().map(SandboxFaultView.init)])
        }
        sandbox.delete("/faults") { _, context in
            await self.ledger.clearFaults()
            context.logger.info("sandbox: faults cleared")
            return JSONResponse.make(["cleared": true])
        }
        sandbox.get("/stats") { _, _ in JSONResponse.make(SandboxStatsView(stats: await self.ledger.statistics())) }
        sandbox.post("/clock/advance") { request, context in
            guard let body = try? await request.decodeJSONOrForm([String: Int].self, context: context),
                let seconds = body["seconds"]
            else { return Self.badRequest("body must be {\"seconds\": Int}") }
            await self.ledger.advanceClock(by: seconds)
            return JSONResponse.make(["now": await self.ledger.now])
        }
        sandbox.put("/webhook-url") { request, context in
            guard let body = try? await request.decodeJSONOrForm([String: String?].self, context: context) else {
                return Self.badRequest("body must be {\"url\": String|null}")
            }
            let url = body["url"] ?? nil
            await self.ledger.setDefaultWebhookURL(url)
            return JSONResponse.make(["url": url])
        }
    }

    struct ExpiredTokens: Encodable {
        var impKey: String
        var revoked: Int
        enum CodingKeys: String, CodingKey {
            case impKey = "imp_key"
            case revoked
        }
    }

    static func badRequest(_ message: String) -> Response {
        JSONResponse.make(SandboxError(error: message), status: .badRequest)
    }

    func view(of payment: PortOnePayment, webhook: SandboxWebhookResult? = nil) async -> SandboxPaymentView {
        SandboxPaymentView(
            payment: payment,
            cancels: payment.cancelHistory,
            lookups: await ledger.lookups(of: payment.impUid),
            cancelRequests: await ledger.cancelRequests(of: payment.impUid),
            webhook: webhook
        )
    }

    func addKey(_ request: Request, _ context: PortOneRequestContext) async throws -> Response {
        let body: SandboxKeyRequest
        do {
            body = try await request.decodeJSONOrForm(SandboxKeyRequest.self, context: context)
        } catch let error as UndecodableBody {
            return Self.badRequest("body must be {\"imp_key\", \"imp_secret\", \"token_ttl\"?}: \(error.detail)")
        }
        let ttl = body.tokenTTL ?? 1800
        await ledger.addKey(body.impKey, secret: body.impSecret, tokenTTL: ttl)
        context.logger.info("sandbox: key registered", metadata: ["imp_key": "\(body.impKey)", "token_ttl": "\(ttl)"])
        return JSONResponse.make(KeyView(impKey: body.impKey, tokenTTL: max(1, ttl)))
    }

    struct KeyView: Encodable {
        var impKey: String
        var tokenTTL: Int
        enum CodingKeys: String, CodingKey {
            case impKey = "imp_key"
            case tokenTTL = "token_ttl"
        }
    }

    func createPayment(_ request: Request, _ context: PortOneRequestContext) async throws -> Response {
        let body: SandboxPaymentRequest
        do {
            body = try await request.decodeJSONOrForm(SandboxPaymentRequest.self, context: context)
        } catch let error as UndecodableBody {
            return Self.badRequest("body must be {\"merchant_uid\", \"amount\", …}: \(error.detail)")
        }
        let payment = await ledger.createPayment(
            merchantUid: body.merchantUid,
            amount: body.amount,
            impUid: body.impUid,
            status: body.status ?? .paid,
            name: body.name,
            buyerEmail: body.buyerEmail,
            buyerName: body.buyerName,
            customData: body.customData?.asCustomData
        )
        context.logger.info(
            "sandbox: payment created",
            metadata: [
                "imp_uid": "\(payment.impUid)", "merchant_uid": "\(payment.merchantUid)", "amount": "\(payment.amount)",
            ]
        )
        var webhook: SandboxWebhookResult?
        if body.webhook == true {
            webhook = await deliver(
                impUid: payment.impUid, url: body.webhookURL, status: nil, timeoutMs: nil, context: context
            ).result
        }
        return JSONResponse.make(await view(of: payment, webhook: webhook))
    }

    func deliverWebhook(_ request: Request, _ context: PortOneRequestContext) async throws -> Response {
        let impUid = context.parameters.get("imp_uid") ?? ""
        let body: SandboxWebhookRequest
        do {
            body = try await request.decodeJSONOrForm(SandboxWebhookRequest.self, context: context)
        } catch let error as UndecodableBody {
            return Self.badRequest("body must be {\"url\"?, \"status\"?}: \(error.detail)")
        }
        let (result, status) = await deliver(
            impUid: impUid, url: body.url, status: body.status, timeoutMs: body.timeoutMs, context: context
        )
        return JSONResponse.make(result, status: status)
    }

    /// Delivers and describes the outcome; the HTTP status is 200 when the receiver answered (whatever it
    /// answered), 404 for an unknown payment, 400 without a URL, 502 when the POST failed.
    func deliver(
        impUid: String,
        url: String?,
        status: String?,
        timeoutMs: Int?,
        context: PortOneRequestContext
    ) async -> (result: SandboxWebhookResult, status: HTTPResponse.Status) {
        let timeout = Duration.milliseconds(max(1, timeoutMs ?? 30000))
        var target = url
        if target == nil { target = await ledger.defaultWebhookURL }
        do throws(PortOneWebhookError) {
            let answered = try await ledger.deliverWebhook(impUid: impUid, to: url, status: status, timeout: timeout)
            context.logger.info(
                "webhook delivered",
                metadata: ["imp_uid": "\(impUid)", "url": "\(target ?? "-")", "answer": "\(answered)"])
            return (SandboxWebhookResult(deliveredTo: target, status: answered), .ok)
        } catch {
            context.logger.info("webhook not delivered", metadata: ["imp_uid": "\(impUid)", "error": "\(error)"])
            let status: HTTPResponse.Status =
                switch error {
                case .unknownPayment: .notFound
                case .noWebhookURL: .badRequest
                case .transport: .badGateway
                }
            return (SandboxWebhookResult(deliveredTo: target, status: nil, error: error.description), status)
        }
    }

    func addFault(_ request: Request, _ context: PortOneRequestContext) async throws -> Response {
        let body: SandboxFaultRequest
        do {
            body = try await request.decodeJSONOrForm(SandboxFaultRequest.self, context: context)
        } catch let error as UndecodableBody {
            return Self.badRequest(
                "body must be {\"target\": lookup|cancel|token, \"kind\": slow|error|drop, …}: \(error.detail)"
            )
        }
        switch body.fault() {
        case .failure(let error):
            return Self.badRequest(error.message)
        case .success(let fault):
            let id = await ledger.addFault(fault)
            context.logger.info(
                "sandbox: fault armed", metadata: ["id": "\(id)", "target": "\(fault.target.rawValue)"])
            let armed = PortOneArmedFault(id: id, fault: fault, remaining: fault.times)
            return JSONResponse.make(SandboxFaultView(armed: armed))
        }
    }
}
