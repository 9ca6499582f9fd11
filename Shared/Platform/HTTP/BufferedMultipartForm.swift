import Hummingbird
import MultipartKit
import NIOCore

/// A `multipart/form-data` body read whole, up to a bound, and split into its parts, for the forms small enough to
/// hold in memory: social's profile edit and posts' G0 post write. Media's uploads stream instead
/// (`MultipartReceiver`). Every body passes `MultipartParserGuard` before MultipartKit sees it.
package struct BufferedMultipartForm: Sendable {
    package struct Part: Sendable {
        /// The `name` of the part's `Content-Disposition`, if it has one.
        package var name: String?
        package var body: ByteBuffer

        /// The part as UTF-8 text, when it is valid UTF-8 of at most `maxBytes`.
        package func text(maxBytes: Int) -> String? {
            guard body.readableBytes <= maxBytes else { return nil }
            return body.getString(at: body.readerIndex, length: body.readableBytes)
        }
    }

    package var parts: [Part]

    /// Reads the request's body (400 with `tooLarge` beyond `limit` bytes, 400 when it is not multipart) and parses it.
    package static func read(_ request: Request, limit: Int, tooLarge: String) async throws -> BufferedMultipartForm {
        guard let boundary = HeaderParameters.multipartBoundary(contentType: request.headers[.contentType]) else {
            throw APIError.badRequest("multipart/form-data 형식이어야 합니다. (expected multipart/form-data with a boundary)")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch {
            throw APIError.badRequest(tooLarge)
        }
        return try parse(body, boundary: boundary)
    }

    /// Splits a whole body into its parts, in order; a malformed body is a 400.
    package static func parse(_ body: ByteBuffer, boundary: String) throws -> BufferedMultipartForm {
        // MultipartKit's callbacks run synchronously inside `execute`, on this thread only.
        final class Collector {
            var parts: [Part] = []
            var name: String?
            var current = ByteBuffer()
        }
        let collector = Collector()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { field, value in
            if field.lowercased() == "content-disposition" {
                collector.name = HeaderParameters(value).parameters["name"]
            }
        }
        parser.onBody = { chunk in collector.current.writeBuffer(&chunk) }
        parser.onPartComplete = {
            collector.parts.append(Part(name: collector.name, body: collector.current))
            collector.name = nil
            collector.current = ByteBuffer()
        }
        var parserGuard = MultipartParserGuard(boundary: boundary)  // MultipartKit traps on some bytes: see there
        try parserGuard.check(body)
        do {
            try parser.execute(body)
        } catch {
            throw APIError.badRequest("잘못된 multipart 본문입니다. (malformed multipart body)")
        }
        return BufferedMultipartForm(parts: collector.parts)
    }
}
