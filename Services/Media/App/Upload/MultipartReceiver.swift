import Logging
import MultipartKit
import NIOCore
import SNSPlatform

/// Reads a `multipart/form-data` body **as it streams in**, with MultipartKit's callback parser, and writes
/// each file of `fileField` to a temp file under the media root as its bytes arrive. Nothing is buffered
/// beyond one 32 KiB slice (plus one file, at most its size limit, while its metadata is removed at the end of its
/// part: photos' location and camera data, videos' location; decision 0044).
///
/// Every limit is checked on the way in, so the moment a file exceeds `maxFileBytes`, a file one past
/// `maxFiles` starts, a file's first bytes are not an image, or the body exceeds `maxBodyBytes`, it stops
/// reading and throws a 400 `APIError`; the rest of the body is never read (the HTTP server then discards it
/// to keep the connection usable). On any failure every temp file it created is removed.
///
/// Reusable for any upload endpoint: posts use `fileField: "files"`. (The profile image arrives without
/// multipart framing, already taken out of the client's form by the social service: `RawFileReceiver`.)
package struct MultipartReceiver: Sendable {
    package let root: MediaRoot
    package let limits: UploadLimits

    /// The parser is fed at most this much at a time, however large the chunks the server delivers.
    static let sliceLength = 32 * 1024

    package init(root: MediaRoot, limits: UploadLimits) {
        self.root = root
        self.limits = limits
    }

    /// - Parameters:
    ///   - body: the request body (`request.body`, or any sequence of buffers).
    ///   - contentType: the request's `Content-Type` (must be `multipart/form-data` with a boundary).
    ///   - fileField: the name of the parts that carry files.
    package func receive<Body: AsyncSequence>(
        _ body: Body, contentType: String?, fileField: String, logger: Logger
    ) async throws -> ReceivedForm where Body.Element == ByteBuffer {
        guard let boundary = HeaderParameters.multipartBoundary(contentType: contentType) else {
            throw APIError.badRequest(
                "multipart/form-data 형식이 아닙니다. (expected a multipart/form-data body with a boundary)")
        }
        let assembler = FormAssembler(root: root, limits: limits, fileField: fileField)
        var bytesRead = 0
        do {
            try await feed(body, boundary: boundary, into: assembler, bytesRead: &bytesRead)
            return try assembler.finish()
        } catch {
            await assembler.abandon()
            logger.debug("upload refused", metadata: ["bytes_read": "\(bytesRead)", "reason": "\(error)"])
            throw error
        }
    }

    private func feed<Body: AsyncSequence>(
        _ body: Body, boundary: String, into assembler: FormAssembler, bytesRead: inout Int
    ) async throws where Body.Element == ByteBuffer {
        let parser = MultipartParser(boundary: boundary)
        var parserGuard = MultipartParserGuard(boundary: boundary)  // MultipartKit traps on some bytes: see there
        let events = ParserEvents()
        parser.onHeader = { name, value in events.header(name, value) }
        parser.onBody = { buffer in events.body(&buffer) }
        parser.onPartComplete = { events.partComplete() }

        // Bytes fed since the parser last reported anything: header lines and preamble are buffered inside
        // the parser until complete, so this bounds what it holds.
        var silentBytes = 0
        for try await chunk in body {
            var chunk = chunk
            while let slice = chunk.readSlice(length: min(Self.sliceLength, chunk.readableBytes)),
                slice.readableBytes > 0
            {
                bytesRead += slice.readableBytes
                guard bytesRead <= limits.maxBodyBytes else {
                    throw APIError.badRequest("요청 본문이 너무 큽니다. (request body larger than \(limits.maxBodyBytes) bytes)")
                }
                try parserGuard.check(slice)
                do {
                    try parser.execute(slice)
                } catch {
                    throw FormAssembler.malformed
                }
                let recorded = events.take()
                if recorded.isEmpty {
                    silentBytes += slice.readableBytes
                    guard silentBytes <= limits.maxFramingBytes else {
                        throw APIError.badRequest("잘못된 multipart 요청입니다. (part headers or preamble too long)")
                    }
                } else {
                    silentBytes = 0
                }
                for event in recorded {
                    try await assembler.apply(event)
                }
            }
        }
    }
}
