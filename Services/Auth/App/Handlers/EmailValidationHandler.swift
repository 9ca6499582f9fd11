import HTTPTypes
import Hummingbird
import SNSPlatform

/// `POST /v1/validation/email` → 200 `{message}` when free, 409 `{message: "사용이 불가한 이메일입니다."}` when
/// taken (clients compare these literals, API conventions §2.1 #2), 400 when not an email address.
struct EmailValidationHandler: Sendable {
    let deps: AuthDependencies

    static let availableMessage = "사용 가능한 이메일입니다."
    static let unavailableMessage = "사용이 불가한 이메일입니다."

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: EmailValidationRequest.self, context: context)
        try deps.rules.validateEmail(body.email)
        if try await deps.store.emailInUse(body.email, logger: context.logger) {
            throw APIError.conflict(Self.unavailableMessage)
        }
        return try .json(MessageBody(message: Self.availableMessage))
    }
}
