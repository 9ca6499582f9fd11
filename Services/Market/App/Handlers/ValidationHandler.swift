import Foundation
import Hummingbird
import SNSPlatform

/// `POST /v1/payments/validation` → 200 `{payment_id, buyer_id, post_id, merchant_uid, productName, price, paidAt}`;
/// the rules and the other answers are `PaymentValidation`'s.
struct ValidationHandler: Sendable {
    let validation: PaymentValidation

    func validate(_ request: Request, context: APIRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await request.decodeJSON(as: ValidationRequest.self, context: context)
        return try .json(PaymentJSON(try await validation.validate(body, by: caller)))
    }
}
