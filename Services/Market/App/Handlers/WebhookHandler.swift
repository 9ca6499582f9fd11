import Foundation
import Hummingbird
import Logging
import SNSPlatform

/// `POST /v1/payments/webhook`: PortOne's (iamport v1) payment notification `{imp_uid, merchant_uid, status}`, as JSON
/// or a form, without `SesacKey` or token. Answers 200 `{message}` once it is handled (recorded, refused, or
/// nothing to do); what it does is `PaymentNotifications`'.
struct WebhookHandler: Sendable {
    let notifications: PaymentNotifications

    static let path = "/v1/payments/webhook"

    func receive(_ request: Request, context: APIRequestContext) async throws -> Response {
        let notification = try await Self.decode(request, context: context)
        let outcome = try await notifications.receive(notification, trace: context.trace, logger: context.logger)
        return try .json(MessageBody(message: outcome))
    }

    /// JSON (what iamport sends) or `application/x-www-form-urlencoded`.
    static func decode(_ request: Request, context: APIRequestContext) async throws -> WebhookNotification {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            return try await request.decodeJSON(as: WebhookNotification.self, context: context)
        }
        let buffer = try await request.body.collect(upTo: 16 * 1024)
        var components = URLComponents()
        components.percentEncodedQuery = String(buffer: buffer).replacingOccurrences(of: "+", with: "%20")
        let items = components.queryItems ?? []
        func value(_ name: String) -> String? { items.first(where: { $0.name == name })?.value }
        guard let impUid = value("imp_uid") else { throw APIError.badRequest("필수값을 채워주세요: imp_uid (missing imp_uid)") }
        return WebhookNotification(impUid: impUid, merchantUid: value("merchant_uid"), status: value("status"))
    }
}
