import Foundation
import HTTPTypes
import Hummingbird

extension Request {
    /// Decodes a JSON body into `T`, mapping every failure to a 400 `{"message"}` that says what was wrong:
    /// malformed JSON, a missing key, a value of the wrong type, or a body over the context's limit.
    package func decodeJSON<T: Decodable>(as type: T.Type = T.self, context: APIRequestContext) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await self.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw APIError.badRequest("요청 본문이 너무 큽니다. (request body larger than \(context.maxUploadSize) bytes)")
        }
        guard buffer.readableBytes > 0 else {
            throw APIError.badRequest("요청 본문이 비어 있습니다. (empty JSON body)")
        }
        do {
            return try context.requestDecoder.decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw APIError.badRequest(Self.describe(error))
        } catch {
            throw APIError.badRequest("잘못된 JSON 입니다. (malformed JSON body)")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let full = path(context.codingPath + [key])
            return "필수값을 채워주세요: \(full) (missing required value '\(full)')"
        case .valueNotFound(_, let context):
            return "필수값을 채워주세요: \(path(context.codingPath)) (missing required value '\(path(context.codingPath))')"
        case .typeMismatch(let type, let context):
            return "잘못된 값입니다: \(path(context.codingPath)) (expected \(type) for '\(path(context.codingPath))')"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "잘못된 JSON 입니다. (malformed JSON body)"
                : "잘못된 값입니다: \(path(context.codingPath)) (invalid value for '\(path(context.codingPath))')"
        @unknown default:
            return "잘못된 요청입니다. (bad request)"
        }
    }
}

extension Response {
    /// A 200 response with a JSON body encoded by the API encoder (contract: success is always 200).
    package static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try APIJSON.encoder().encode(value)
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

/// `{"message": "..."}` for successful responses that only carry a message (email validation, logout).
package struct MessageBody: Codable, Sendable, Equatable {
    package var message: String
    package init(message: String) { self.message = message }
}
