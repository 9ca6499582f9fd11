import Foundation
import HTTPTypes
import Hummingbird

/// An error the API reports to clients as `{"message": "..."}` with the contract's status code (§5).
package struct APIError: Error, HTTPResponseError, Sendable, CustomStringConvertible {
    package let status: HTTPResponse.Status
    package let message: String

    package init(_ code: Int, _ message: String) {
        self.status = HTTPResponse.Status(code: code)
        self.message = message
    }

    package var description: String { "\(status.code) \(message)" }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        Self.response(status: status, message: message)
    }

    static func response(status: HTTPResponse.Status, message: String) -> Response {
        var buffer = ByteBuffer()
        buffer.writeString(#"{"message":"#)
        buffer.writeString(Self.jsonString(message))
        buffer.writeString("}")
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: buffer)
        )
    }

    /// `text` as a JSON string literal, quotes included.
    package static func jsonString(_ text: String) -> String {
        // Printable ASCII that JSONEncoder leaves as it is (every cursor): quoted without an encoder, same bytes.
        if text.utf8.allSatisfy({
            $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "/")
        }) {
            return "\"" + text + "\""
        }
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: The contract's codes (§5, §10.2)

    package static func badRequest(_ message: String = "필수값을 채워주세요. (missing or invalid value)") -> APIError {
        APIError(400, message)
    }
    package static func unauthorized(_ message: String = "인증할 수 없는 액세스 토큰입니다. (access token cannot be verified)")
        -> APIError
    { APIError(401, message) }
    package static func nickWhitespace() -> APIError {
        APIError(402, "닉네임에 공백이 포함될 수 없습니다. (nick must not contain whitespace)")
    }
    package static func forbidden(_ message: String = "접근권한이 없습니다. (forbidden)") -> APIError { APIError(403, message) }
    package static func conflict(_ message: String) -> APIError { APIError(409, message) }
    package static func gone(_ message: String = "대상을 찾을 수 없습니다. (not found)") -> APIError { APIError(410, message) }
    package static func refreshTokenExpired() -> APIError {
        APIError(418, "리프레시 토큰이 만료되었습니다. 다시 로그인 해주세요. (refresh token expired)")
    }
    package static func accessTokenExpired() -> APIError { APIError(419, "액세스 토큰이 만료되었습니다. (access token expired)") }
    package static func invalidAPIKey() -> APIError { APIError(420, "This service sesac_memolease only") }
    package static func invalidProductId() -> APIError {
        APIError(421, "서비스 식별자(ProductId)를 찾을 수 없습니다. (unknown ProductId)")
    }
    package static func tooManyRequests() -> APIError { APIError(429, "과호출입니다. (too many requests)") }
    package static func unknownRoute() -> APIError { APIError(444, "돌아가 여긴 자네가 올 곳이 아니야. (unknown route)") }
    package static func notOwner() -> APIError { APIError(445, "본인만 수정/삭제할 수 있습니다. (not the owner)") }
    package static func internalError() -> APIError { APIError(500, "서버 오류입니다. (internal server error)") }
    package static func unavailable(_ message: String = "일시적으로 사용할 수 없습니다. (temporarily unavailable)") -> APIError {
        APIError(503, message)
    }
}
