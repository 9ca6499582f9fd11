import SNSPlatform

/// The metadata stripper a photo's bytes pass through on their way to disk, by its type (decisions 0046, 0047): a
/// JPEG loses its Exif, XMP, IPTC and comments, a PNG its Exif and text chunks, a WebP its Exif and XMP. Other types
/// have none (HEIF photos and videos are scrubbed in place once written). A file whose structure does not hold is
/// refused with 400 and a message naming its position in the upload. (An enum of the concrete strippers rather than
/// an `any StreamingMetadataFilter`: their byte loops are then specialised for the buffers they are fed.)
enum StreamingMetadataStripper {
    case jpeg(JPEGMetadataStripper)
    case png(PNGMetadataStripper)
    case webp(WebPMetadataStripper)

    init?(for type: ImageType) {
        switch type {
        case .jpeg: self = .jpeg(JPEGMetadataStripper())
        case .png: self = .png(PNGMetadataStripper())
        case .webp: self = .webp(WebPMetadataStripper())
        case .gif, .heic, .mp4, .mov, .m4a: return nil
        }
    }

    /// Appends what is kept of the next bytes to `output`; `position` is the file's number in the upload.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8], position: Int) throws {
        do {
            switch self {
            case .jpeg(var stripper):
                try stripper.feed(bytes, into: &output)
                self = .jpeg(stripper)
            case .png(var stripper):
                try stripper.feed(bytes, into: &output)
                self = .png(stripper)
            case .webp(var stripper):
                try stripper.feed(bytes, into: &output)
                self = .webp(stripper)
            }
        } catch {
            throw Self.refusal(error, position: position)
        }
    }

    /// The file has ended: the overwrites of bytes already written that what was dropped calls for (a WebP's
    /// header), or a refusal when the file was cut short or malformed.
    func finish(position: Int) throws -> [MetadataPatch] {
        do {
            switch self {
            case .jpeg(let stripper): return try stripper.finish()
            case .png(let stripper): return try stripper.finish()
            case .webp(let stripper): return try stripper.finish()
            }
        } catch {
            throw Self.refusal(error, position: position)
        }
    }

    static func refusal(_ error: any Error, position: Int) -> any Error {
        switch error {
        case let error as JPEGMetadataStripper.Malformed:
            APIError.badRequest("손상된 JPEG 파일입니다. (file \(position) is not a well-formed JPEG: \(error.reason))")
        case let error as PNGMetadataStripper.Malformed:
            APIError.badRequest("손상된 PNG 파일입니다. (file \(position) is not a well-formed PNG: \(error.reason))")
        case let error as WebPMetadataStripper.Malformed:
            APIError.badRequest("손상된 WebP 파일입니다. (file \(position) is not a well-formed WebP: \(error.reason))")
        default: error
        }
    }
}
