import Foundation
import Hummingbird
import NIOCore

/// The body could not be decoded; `detail` says why.
struct UndecodableBody: Error {
    var detail: String
}

extension Request {
    /// Decodes the body as form-urlencoded when the Content-Type says so, else as JSON (an empty body = `{}`).
    func decodeJSONOrForm<T: Decodable>(_ type: T.Type, context: PortOneRequestContext) async throws -> T {
        let buffer = try await body.collect(upTo: context.maxUploadSize)
        let text = String(buffer: buffer)
        do {
            if headers[.contentType]?.lowercased().contains("application/x-www-form-urlencoded") == true {
                return try URLEncodedFormDecoder().decode(T.self, from: text)
            }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return try JSONDecoder().decode(T.self, from: Data((trimmed.isEmpty ? "{}" : trimmed).utf8))
        } catch {
            throw UndecodableBody(detail: String(describing: error))
        }
    }
}

extension KeyedDecodingContainer {
    /// An integer sent as a JSON number (whole or not) or as a numeric string, as callers of iamport do.
    func decodeLenientInt(forKey key: Key) throws -> Int? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(Int.self, forKey: key) { return value }
        if let value = try? decode(Double.self, forKey: key), value.isFinite { return Int(value.rounded()) }
        let text = try decode(String.self, forKey: key).trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return nil }
        if let value = Int(text) { return value }
        if let value = Double(text), value.isFinite { return Int(value.rounded()) }
        throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a number: \(text)")
    }
}
