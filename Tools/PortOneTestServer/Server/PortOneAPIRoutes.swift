import Foundation
import HTTPTypes
import Hummingbird

/// The iamport REST API v1 endpoints our services call.
struct PortOneAPIRoutes: Sendable {
    let ledger: PortOneLedger

    func add(to router: Router<PortOneRequestContext>) {
        router.post("/users/getToken") { request, context in try await self.getToken(request, context) }
        router.post("/payments/cancel") { request, context in try await self.cancel(request, context) }
        router.get("/payments/{imp_uid}") { request, context in try await self.lookup(request, context) }
    }

    struct TokenRequest: Decodable {
        var impKey: String?
        var impSecret: String?
        enum CodingKeys: String, CodingKey {
            case impKey = "imp_key"
            case impSecret = "imp_secret"
        }
    }

    func getToken(_ request: Request, _ context: PortOneRequestContext) async throws -> Response {
        let body = try? await request.decodeJSONOrForm(TokenRequest.self, context: context)
        let impKey = body?.impKey ?? ""
        let fault = await ledger.admit(.token, impKey: impKey)
        if let response = try await FaultInjection.apply(fault, context: context) { return response }
        guard let token = await ledger.issueToken(impKey: impKey, impSecret: body?.impSecret ?? "") else {
            context.logger.info("getToken refused", metadata: ["imp_key": "\(impKey)"])
            return JSONResponse.failure(code: -1, message: PortOneMessage.invalidCredentials, status: .unauthorized)
        }
        context.logger.info("getToken issued", metadata: ["imp_key": "\(impKey)", "expired_at": "\(token.expiredAt)"])
        return JSONResponse.success(token)
    }

    func lookup(_ request: Request, _ context: PortOneRequestContext) async throws -> Response {
        let impUid = context.parameters.get("imp_uid") ?? ""
        let fault = await ledger.admit(.lookup, impUid: impUid)
        if let response = try await FaultInjection.apply(fault, context: context) { return response }
        guard await authorizedKey(request) != nil else {
            context.logger.info("payment lookup unauthorized", metadata: ["imp_uid": "\(impUid)"])
            return JSONResponse.failure(code: -1, message: PortOneMessage.unauthorized, status: .unauthorized)
        }
        guard let payment = await ledger.payment(impUid) else {
            context.logger.info("payment lookup: not found", metadata: ["imp_uid": "\(impUid)"])
            return JSONResponse.failure(code: -1, message: PortOneMessage.paymentNotFound, status: .notFound)
        }
        context.logger.info(
            "payment lookup", metadata: ["imp_uid": "\(impUid)", "status": "\(payment.status.rawValue)"])
        return JSONResponse.success(payment)
    }

    struct CancelRequest: Decodable {
        var impUid: String?
        var merchantUid: String?
        var amount: Int?
        var reason: String?
        var checksum: Int?

        enum CodingKeys: String, CodingKey {
            case impUid = "imp_uid"
            case merchantUid = "merchant_uid"
            case amount, reason, checksum
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            impUid = try c.decodeIfPresent(String.self, forKey: .impUid)
            merchantUid = try c.decodeIfPresent(String.self, forKey: .merchantUid)
            amount = try c.decodeLenientInt(forKey: .amount)
            reason = try c.decodeIfPresent(String.self, forKey: .reason)
            checksum = try c.decodeLenientInt(forKey: .checksum)
        }
    }

    func cancel(_ request: Request, _ context: PortOneRequestContext) async throws -> Response {
        guard let body = try? await request.decodeJSONOrForm(CancelRequest.self, context: context) else {
            return JSONResponse.failure(code: -1, message: PortOneMessage.badRequest, status: .badRequest)
        }
        let fault = await ledger.admitCancel(impUid: body.impUid, merchantUid: body.merchantUid)
        if let response = try await FaultInjection.apply(fault, context: context) { return response }
        guard await authorizedKey(request) != nil else {
            context.logger.info("cancel unauthorized")
            return JSONResponse.failure(code: -1, message: PortOneMessage.unauthorized, status: .unauthorized)
        }
        let outcome = await ledger.cancel(
            impUid: body.impUid,
            merchantUid: body.merchantUid,
            amount: body.amount,
            reason: body.reason,
            checksum: body.checksum
        )
        switch outcome {
        case .cancelled(let payment):
            context.logger.info(
                "cancel applied",
                metadata: [
                    "imp_uid": "\(payment.impUid)", "cancel_amount": "\(payment.cancelAmount)",
                    "status": "\(payment.status.rawValue)",
                ]
            )
            return JSONResponse.success(payment)
        case .rejected(let message):
            context.logger.info(
                "cancel refused", metadata: ["imp_uid": "\(body.impUid ?? "-")", "reason": "\(message)"])
            return JSONResponse.failure(code: 1, message: message, status: .ok)
        }
    }

    /// The key of the token the request carries (`Authorization: Bearer <t>`, `Authorization: <t>` or
    /// `X-ImpTokenHeader: <t>`), or nil when there is none or it isn't valid.
    func authorizedKey(_ request: Request) async -> String? {
        for token in Self.tokens(in: request.headers) {
            if let key = await ledger.impKey(forToken: token) { return key }
        }
        return nil
    }

    static let impTokenHeader = HTTPField.Name("X-ImpTokenHeader")!

    static func tokens(in headers: HTTPFields) -> [String] {
        var found: [String] = []
        if let authorization = headers[.authorization]?.trimmingCharacters(in: .whitespaces) {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                found.append(parts[1].trimmingCharacters(in: .whitespaces))
            } else if !authorization.isEmpty {
                found.append(authorization)
            }
        }
        if let header = headers[impTokenHeader]?.trimmingCharacters(in: .whitespaces), !header.isEmpty {
            found.append(header)
        }
        return found
    }
}
