import Foundation
import Hummingbird

/// iamport's response envelope: `{"code": Int, "message": String|null, "response": Object|null}`; code 0 = success.
struct PortOneEnvelope<Payload: Encodable & Sendable>: Encodable, Sendable {
    var code: Int
    var message: String?
    var response: Payload?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(message, forKey: .message)
        try c.encode(response, forKey: .response)
    }

    enum CodingKeys: String, CodingKey { case code, message, response }
}

/// Placeholder payload type for envelopes whose `response` is null.
struct NoPayload: Encodable, Sendable {}

/// JSON responses of the test server.
enum JSONResponse {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            data = Data(#"{"code":-1,"message":"response encoding failed","response":null}"#.utf8)
            return Response(
                status: .internalServerError, headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }

    /// A success envelope around `payload`.
    static func success(_ payload: some Encodable & Sendable) -> Response {
        make(PortOneEnvelope(code: 0, message: nil, response: payload))
    }

    /// An envelope with a null `response`.
    static func failure(code: Int, message: String, status: HTTPResponse.Status) -> Response {
        make(PortOneEnvelope<NoPayload>(code: code, message: message, response: nil), status: status)
    }
}

/// The iamport messages the test server answers with.
enum PortOneMessage {
    static let invalidCredentials = "imp_key, imp_secret 정보가 올바르지 않습니다."
    static let unauthorized = "Unauthorized"
    static let paymentNotFound = "존재하지 않는 결제정보입니다."
    static let badRequest = "요청 본문을 해석할 수 없습니다."
    static let internalError = "Internal Server Error"
}
