import NIOCore
import SNSPlatform

/// Turns the parser's events into parts: files of the file field go to a `FilePartWriter` each, other parts
/// are kept as small text fields (or, when they carry a file under another name, counted and dropped).
/// Enforces the per-request limits as events arrive. Used by one task, never shared.
final class FormAssembler {
    private enum Part {
        /// Header lines seen so far; the part's kind is decided when its body starts.
        case headers([(name: String, value: String)])
        case file(FilePartWriter)
        /// `name` is nil for a part that is dropped (a file under another field name, or no name at all).
        case field(name: String?, label: String, data: ByteBuffer)
    }

    let root: MediaRoot
    let limits: UploadLimits
    let fileField: String
    private var current: Part?
    private var partCount = 0
    private var fileCount = 0
    private var writers: [FilePartWriter] = []
    private var files: [ReceivedFile] = []
    private var fields: [String: String] = [:]

    init(root: MediaRoot, limits: UploadLimits, fileField: String) {
        self.root = root
        self.limits = limits
        self.fileField = fileField
    }

    func apply(_ event: ParserEvents.Event) async throws {
        switch event {
        case .header(let name, let value):
            var headers: [(name: String, value: String)] = []
            switch current {
            case nil: try countPart()
            case .headers(let seen): headers = seen
            case .file, .field: throw Self.malformed
            }
            guard headers.count < 16 else {
                throw APIError.badRequest("잘못된 multipart 요청입니다. (too many headers in one part)")
            }
            headers.append((name, value))
            current = .headers(headers)

        case .body(let buffer):
            try beginPartIfNeeded()
            switch current {
            case .file(let writer):
                try await writer.append(buffer)
            case .field(let name, let label, var data):
                data.writeImmutableBuffer(buffer)
                guard data.readableBytes <= limits.maxFieldBytes else {
                    throw APIError.badRequest(
                        "'\(label)' 항목이 너무 큽니다. (part '\(label)' is larger than \(limits.maxFieldBytes) bytes; images go in the '\(fileField)' field)"
                    )
                }
                current = .field(name: name, label: label, data: data)
            case .headers, nil:
                throw Self.malformed
            }

        case .partComplete:
            try beginPartIfNeeded()
            switch current {
            case .file(let writer):
                files.append(try await writer.finish())
            case .field(let name?, _, let data):
                fields[name] = String(buffer: data)
            case .field(nil, _, _):
                break
            case .headers, nil:
                throw Self.malformed
            }
            current = nil
        }
    }

    /// The form, once the body ended. A part still open means the body was cut off.
    func finish() throws -> ReceivedForm {
        guard case .none = current else {
            throw APIError.badRequest("잘못된 multipart 요청입니다. (the body ended in the middle of a part)")
        }
        return ReceivedForm(files: files, fields: fields)
    }

    /// Closes any open temp file and removes every temp file this upload created.
    func abandon() async {
        var paths: [String] = []
        for writer in writers {
            await writer.abandon()
            paths.append(contentsOf: writer.createdPaths)
        }
        await MediaDisk.removeQuietly(paths)
    }

    private func countPart() throws {
        partCount += 1
        guard partCount <= limits.maxParts else {
            throw APIError.badRequest("잘못된 multipart 요청입니다. (more than \(limits.maxParts) parts)")
        }
    }

    /// Decides what the current part is from its headers, the first time its body (or its end) shows up.
    private func beginPartIfNeeded() throws {
        let headers: [(name: String, value: String)]
        switch current {
        case .file, .field: return
        case .headers(let seen): headers = seen
        case nil:
            try countPart()  // a part without any header lines
            headers = []
        }
        let disposition = headers.last { $0.name.lowercased() == "content-disposition" }.map {
            HeaderParameters($0.value)
        }
        let name = disposition?.parameters["name"]
        if name == fileField {
            guard fileCount < limits.maxFiles else {
                throw APIError.badRequest(
                    "파일은 최대 \(limits.maxFiles)개까지 업로드할 수 있습니다. (at most \(limits.maxFiles) files per request)")
            }
            fileCount += 1
            let writer = FilePartWriter(
                root: root, maxBytes: limits.maxFileBytes, maxVideoBytes: limits.maxVideoBytes, position: fileCount)
            writers.append(writer)
            current = .file(writer)
        } else {
            let carriesFile = disposition?.parameters["filename"] != nil || disposition?.parameters["filename*"] != nil
            current = .field(name: carriesFile ? nil : name, label: name ?? "unnamed", data: ByteBuffer())
        }
    }

    static let malformed = APIError.badRequest("잘못된 multipart 요청입니다. (malformed multipart body)")
}
