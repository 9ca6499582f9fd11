import Crypto
import NIOCore
import SNSPlatform

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Receives one file part: holds back the first bytes until the type can be recognised, then writes
/// everything to a temp file as it arrives, counting and hashing; refuses the file the moment it is not an
/// image or grows past the limit. Used by one task (the upload's), never shared.
final class FilePartWriter {
    let root: MediaRoot
    let maxBytes: Int
    let position: Int
    private(set) var temporaryPath: String?
    /// Every temp file this part created, so a failure can remove them all.
    private(set) var createdPaths: [String] = []
    private var descriptor: FileDescriptor?
    private var type: ImageType?
    private var pending = ByteBuffer()
    private var size = 0
    private var hasher = SHA256()

    /// - Parameter position: the file's number in the upload (1-based), for messages.
    init(root: MediaRoot, maxBytes: Int, position: Int) {
        self.root = root
        self.maxBytes = maxBytes
        self.position = position
    }

    func append(_ buffer: ByteBuffer) async throws {
        size += buffer.readableBytes
        guard size <= maxBytes else {
            throw APIError.badRequest(
                "파일 용량이 너무 큽니다. (file \(position) is larger than \(Self.describe(bytes: maxBytes)))")
        }
        if type == nil {
            pending.writeImmutableBuffer(buffer)
            guard pending.readableBytes >= ImageType.sniffLength else { return }
            try await recognise()
            let head = pending
            pending = ByteBuffer()
            try await write(head)
        } else {
            try await write(buffer)
        }
    }

    /// Completes the file: checks it, removes a photo's or a video's metadata (decision 0044), fsyncs and closes. The
    /// temp file is then final.
    func finish() async throws -> ReceivedFile {
        if type == nil { try await recognise() }  // shorter than the sniff length: never an image
        guard let type, let descriptor, let temporaryPath else { throw Self.notAnImage(position) }
        if Self.rewritten.contains(type) {
            await descriptor.close()
            self.descriptor = nil
            return try await finishWithoutMetadata(original: temporaryPath, type: type)
        }
        try await descriptor.sync()
        await descriptor.close()
        self.descriptor = nil
        let digest = hasher.finalize()
        return ReceivedFile(temporaryPath: temporaryPath, type: type, size: size, sha256: Self.hex(digest))
    }

    /// Closes the temp file if open (clean-up on failure; the caller removes the file).
    func abandon() async {
        await descriptor?.close()
        descriptor = nil
    }

    private func recognise() async throws {
        guard pending.readableBytes >= ImageType.sniffLength,
            let type = ImageType.sniff(pending.readableBytesView)
        else { throw Self.notAnImage(position) }
        self.type = type
        let path = root.newTemporaryPath()
        temporaryPath = path
        createdPaths.append(path)
        descriptor = try await FileDescriptor.create(path)
    }

    private func write(_ buffer: ByteBuffer) async throws {
        guard let descriptor else { return }
        if let type, !Self.rewritten.contains(type) {  // hashed once its metadata is gone
            buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }
        try await descriptor.write(buffer)
    }

    /// The types whose metadata is removed once the whole file is in: a photo's location, camera and times, a
    /// video's location (decision 0044).
    static let rewritten: Set<ImageType> = [.jpeg, .heic, .mp4, .mov]

    /// Reads the file back (it is at most `maxBytes`), removes its metadata into a second temp file (fsynced), and
    /// removes the original. A broken JPEG segment structure or HEIF box structure → 400 (a video's boxes are walked
    /// as far as they fit: videos were stored as they came before).
    private func finishWithoutMetadata(original: String, type: ImageType) async throws -> ReceivedFile {
        guard let reader = try await FileDescriptor.openForReading(original) else {
            throw DiskError(operation: "reopen", path: original, code: ENOENT)
        }
        let bytes: [UInt8]
        do {
            bytes = try await reader.readAll(limit: maxBytes)
            await reader.close()
        } catch {
            await reader.close()
            throw error
        }
        let position = self.position
        let (stripped, digest) = try await runBlocking { () throws -> ([UInt8], String) in
            let stripped = try Self.withoutMetadata(bytes, type: type, position: position)
            return (stripped, Self.hex(SHA256.hash(data: stripped)))
        }
        let path = root.newTemporaryPath()
        temporaryPath = path
        createdPaths.append(path)
        let output = try await FileDescriptor.create(path)
        do {
            try await output.write(ByteBuffer(bytes: stripped))
            try await output.sync()
            await output.close()
        } catch {
            await output.close()
            throw error
        }
        await MediaDisk.removeQuietly([original])
        return ReceivedFile(temporaryPath: path, type: type, size: stripped.count, sha256: digest)
    }

    static func withoutMetadata(_ bytes: [UInt8], type: ImageType, position: Int) throws -> [UInt8] {
        switch type {
        case .mp4, .mov:
            var scrubbed = bytes
            _ = VideoLocationScrubber.scrub(&scrubbed)
            return scrubbed
        case .heic:
            var scrubbed = bytes
            do {
                _ = try HEIFMetadataScrubber.scrub(&scrubbed)
                _ = VideoLocationScrubber.scrub(&scrubbed)  // a `moov` (sequence) beside the items: its location too
            } catch let error as HEIFMetadataScrubber.Malformed {
                throw APIError.badRequest(
                    "손상된 HEIF 파일입니다. (file \(position) is not a well-formed HEIF image: \(error.reason))")
            }
            return scrubbed
        default:
            do {
                return try JPEGMetadataStripper.strip(bytes)
            } catch let error as JPEGMetadataStripper.Malformed {
                throw APIError.badRequest(
                    "손상된 JPEG 파일입니다. (file \(position) is not a well-formed JPEG: \(error.reason))")
            }
        }
    }

    static func notAnImage(_ position: Int) -> APIError {
        APIError.badRequest(
            "허용되지 않는 파일 형식입니다. (file \(position) is not a JPEG, PNG, GIF, WebP or HEIF image, or an MP4 or QuickTime video)"
        )
    }

    static func describe(bytes: Int) -> String {
        bytes % (1024 * 1024) == 0 ? "\(bytes / (1024 * 1024)) MB" : "\(bytes) bytes"
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
