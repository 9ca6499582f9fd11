import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// `GET /v1/uploads/<kind>/<name>.<ext>` (SesacKey and a valid access token, API conventions §10.7), and the same
/// file at G0's `GET /uploads/<kind>/<name>.<ext>` (no prefix, API conventions §1.3; decision 0011).
///
/// The path is parsed strictly with `MediaPath` **before** anything touches the disk: anything that is not a
/// path we could have issued (`..`, `%2e%2e`, extra segments, other characters) is 444, like any unknown
/// route. A well-formed path without a `files` row (never stored, or collected) is 410.
///
/// Files never change once stored (every upload gets a new name), so responses carry a strong `ETag` (the
/// SHA-256 of the bytes) and `Cache-Control: private, max-age=31536000, immutable`; `If-None-Match` → 304.
/// One `Range` (`a-b`, `a-`, `-n`) → 206 with `Content-Range`; unsatisfiable → 416 with `bytes */size`;
/// malformed or multi-range → the whole file. The body streams from disk in 64 KiB reads.
struct DownloadHandler: Sendable {
    let deps: MediaDependencies

    /// What precedes the file's path in the request path: `/v1/` (G1) or `/` (G0).
    let routePrefix: String
    static let cacheControl = "private, max-age=31536000, immutable"
    static let chunkLength = 64 * 1024

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try context.requireUser()
        let raw = request.uri.path
        // mychelin (G2, decision 0021) builds `{base}/v1/` + a path that starts with a slash: `/v1//uploads/…`.
        guard raw.hasPrefix(routePrefix),
            let path = MediaPath(String(raw.dropFirst(routePrefix.count).drop { $0 == "/" }))
        else {
            throw APIError.unknownRoute()
        }
        guard let record = try await deps.catalog.file(path: path.string, logger: context.logger), record.size > 0
        else {
            throw Self.gone
        }
        let etag = ConditionalRequest.quoted(record.etag)
        var headers: HTTPFields = [
            .eTag: etag,
            .cacheControl: Self.cacheControl,
            .acceptRanges: "bytes",
        ]
        if ConditionalRequest.noneMatchHits(request.headers[.ifNoneMatch], etag: record.etag) {
            return Response(status: .notModified, headers: headers)
        }

        var outcome = ConditionalRequest.range(request.headers[.range], size: record.size)
        if !ConditionalRequest.ifRangeAllows(request.headers[.ifRange], etag: record.etag) { outcome = .whole }
        let status: HTTPResponse.Status
        let range: ClosedRange<Int>
        switch outcome {
        case .whole:
            status = .ok
            range = 0...(record.size - 1)
        case .partial(let requested):
            status = .partialContent
            range = requested
            headers[.contentRange] = "bytes \(requested.lowerBound)-\(requested.upperBound)/\(record.size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(record.size)"
            var response = try Response.json(
                MessageBody(message: "요청한 범위를 제공할 수 없습니다. (range not satisfiable)"),
                status: .rangeNotSatisfiable)
            for field in headers { response.headers.append(field) }
            return response
        }

        // Opened before answering: a garbage collection that unlinks the file now cannot cut the download short.
        let location = deps.root.location(of: path)
        guard let file = try await FileDescriptor.openForReading(location) else {
            context.logger.error("stored file missing on disk", metadata: ["path": "\(path.string)"])
            throw Self.gone
        }
        let actualSize = try await file.size()
        guard actualSize == record.size else {
            await file.close()
            context.logger.error(
                "stored file has the wrong size",
                metadata: [
                    "path": "\(path.string)", "expected": "\(record.size)", "actual": "\(actualSize)",
                ])
            throw APIError.internalError()
        }
        headers[.contentType] = record.contentType
        headers[.contentLength] = String(range.count)
        let body = ResponseBody(contentLength: range.count) { writer in
            // `file` closes in its deinit too, should the body never be written.
            do {
                var offset = range.lowerBound
                while offset <= range.upperBound {
                    let chunk = try await file.read(
                        at: offset, length: min(Self.chunkLength, range.upperBound - offset + 1))
                    guard chunk.readableBytes > 0 else {
                        throw DiskError(operation: "read (file shrank)", path: file.path, code: 0)
                    }
                    try await writer.write(chunk)
                    offset += chunk.readableBytes
                }
                await file.close()
                try await writer.finish(nil)
            } catch {
                await file.close()
                throw error
            }
        }
        return Response(status: status, headers: headers, body: body)
    }

    static let gone = APIError.gone("파일을 찾을 수 없습니다. (file not found or deleted)")
}
