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
/// image, a video or a voice memo, or grows past its kind's limit (until its kind is known, the larger one). Used by
/// one task (the upload's), never shared.
final class FilePartWriter {
    let root: MediaRoot
    /// Bytes a photo may have (`SNS_MEDIA_MAX_FILE_BYTES`).
    let maxBytes: Int
    /// Bytes a video or a voice memo may have (`SNS_MEDIA_MAX_VIDEO_BYTES`, decision 0046).
    let maxVideoBytes: Int
    /// Whether videos and voice memos are refused (a profile image, a G0 post's image).
    let photosOnly: Bool
    let position: Int
    private(set) var temporaryPath: String?
    /// The temp files this part created (its one file, once its type is known), so a failure can remove them.
    var createdPaths: [String] { temporaryPath.map { [$0] } ?? [] }
    private var descriptor: FileDescriptor?
    private var type: ImageType?
    private var pending = ByteBuffer()
    /// Bytes received (what the limits count).
    private var size = 0
    /// Bytes written to the temp file (fewer than received for a JPEG, PNG or WebP, whose metadata is left out).
    private var written = 0
    /// A JPEG's, PNG's or WebP's metadata stripper, fed as the bytes arrive (decisions 0046, 0047).
    private var stripper: StreamingMetadataStripper?
    private var hasher = SHA256()

    /// - Parameter position: the file's number in the upload (1-based), for messages.
    init(root: MediaRoot, maxBytes: Int, maxVideoBytes: Int, photosOnly: Bool = false, position: Int) {
        self.root = root
        self.maxBytes = maxBytes
        self.maxVideoBytes = maxVideoBytes
        self.photosOnly = photosOnly
        self.position = position
    }

    /// The limit of the file's kind, or the larger one while its kind is not known.
    private var limit: Int {
        guard let type else { return max(maxBytes, maxVideoBytes) }
        return Self.videos.contains(type) ? maxVideoBytes : maxBytes
    }

    private func checkSize() throws {
        guard size <= limit else {
            throw APIError.badRequest(
                "파일 용량이 너무 큽니다. (file \(position) is larger than \(Self.describe(bytes: limit)))")
        }
    }

    func append(_ buffer: ByteBuffer) async throws {
        size += buffer.readableBytes
        try checkSize()
        if type == nil {
            pending.writeImmutableBuffer(buffer)
            guard pending.readableBytes >= ImageType.sniffLength else { return }
            try await recognise()
            try checkSize()  // now against its kind's limit
            let head = pending
            pending = ByteBuffer()
            try await write(head)
        } else {
            try await write(buffer)
        }
    }

    /// Completes the file: checks it, removes what is left of its metadata — a HEIF photo's EXIF and XMP items, a
    /// video's or voice memo's location, in the file as written (a JPEG's, PNG's or WebP's went on the way in; a
    /// WebP's header is corrected here) — fsyncs and closes. The temp file is then final. Nothing is ever read whole
    /// (decisions 0044, 0046, 0047).
    func finish() async throws -> ReceivedFile {
        if type == nil { try await recognise() }  // shorter than the sniff length: never an image
        guard let type, let descriptor, let temporaryPath else { throw Self.notAnImage(position) }
        var rewritten = 0
        switch type {
        case .jpeg, .png, .webp:
            for patch in try stripper?.finish(position: position) ?? [] {
                try await descriptor.write(patch.bytes, at: patch.offset)
                rewritten += 1
            }
        case .heic:
            do {
                rewritten += try await HEIFFileScrubber.scrub(descriptor, size: written)
            } catch let error as HEIFMetadataScrubber.Malformed {
                throw APIError.badRequest(
                    "손상된 HEIF 파일입니다. (file \(position) is not a well-formed HEIF image: \(error.reason))")
            }
            rewritten += try await VideoFileScrubber.scrub(descriptor, size: written)  // a `moov` beside the items
        case .mp4, .mov, .m4a:
            rewritten += try await VideoFileScrubber.scrub(descriptor, size: written)
        case .gif:
            break  // stored as uploaded (decision 0005)
        }
        if rewritten > 0 {
            hasher = try await Self.hash(descriptor, size: written)  // what was streamed in has changed since
        }
        try await descriptor.sync()
        await descriptor.close()
        self.descriptor = nil
        let digest = hasher.finalize()
        return ReceivedFile(temporaryPath: temporaryPath, type: type, size: written, sha256: Self.hex(digest))
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
        if photosOnly, Self.videos.contains(type) {
            throw APIError.badRequest(
                "허용되지 않는 파일 형식입니다. (file \(position) is not a JPEG, PNG, GIF, WebP or HEIF image)")
        }
        self.type = type
        stripper = StreamingMetadataStripper(for: type)
        let path = root.newTemporaryPath()
        temporaryPath = path
        descriptor = try await FileDescriptor.create(path)
    }

    private func write(_ buffer: ByteBuffer) async throws {
        guard let descriptor else { return }
        if var stripper {  // what is kept of a photo goes to disk: its metadata never does
            var kept: [UInt8] = []
            kept.reserveCapacity(buffer.readableBytes)
            try buffer.withUnsafeReadableBytes { try stripper.feed($0, into: &kept, position: position) }
            self.stripper = stripper
            hasher.update(data: kept)
            written += kept.count
            try await descriptor.write(ByteBuffer(bytes: kept))
            return
        }
        buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        written += buffer.readableBytes
        try await descriptor.write(buffer)
    }

    /// Videos and voice memos: their own size limit, and refused where only a photo will do (decisions 0045, 0046).
    static let videos: Set<ImageType> = [.mp4, .mov, .m4a]

    /// SHA-256 of the first `size` bytes of `file`, read a mebibyte at a time.
    static func hash(_ file: FileDescriptor, size: Int) async throws -> SHA256 {
        var hasher = SHA256()
        var offset = 0
        while offset < size {
            let chunk = try await file.read(at: offset, length: min(1 << 20, size - offset))
            guard chunk.readableBytes > 0 else { throw DiskError(operation: "read", path: file.path, code: EIO) }
            chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            offset += chunk.readableBytes
        }
        return hasher
    }

    static func notAnImage(_ position: Int) -> APIError {
        APIError.badRequest(
            "허용되지 않는 파일 형식입니다. (file \(position) is not a JPEG, PNG, GIF, WebP or HEIF image, an MP4 or QuickTime video, or MPEG-4 audio)"
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
