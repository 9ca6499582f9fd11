/// The formats we accept (API conventions §10.7), recognised by their leading bytes ("magic numbers") only: images
/// (HEIF photos too: iPhones' library photos, which WeeMo's chat sends as they are, decision 0044), and MP4/QuickTime
/// videos (WeeMo, G2, decision 0021: its feeds, meets and chats carry videos), and MPEG-4 audio (WeeMo's chat voice
/// memos, decision 0045). The filename and
/// the part's declared `Content-Type` are never consulted: clients send names without extensions and `image/jpg`
/// for PNGs (API conventions §1.3), and a declared type proves nothing.
package enum ImageType: String, Sendable, CaseIterable {
    case jpeg
    case png
    case gif
    case webp
    case heic
    case mp4
    case mov
    /// MPEG-4 audio (`M4A ` brand: what `AVAudioRecorder` writes for AAC). Stored with the `.mp4` extension: WeeMo
    /// labels its voice memos `video_N.mp4` and plays a chat file in its video player only when the path says `.mp4`
    /// or `.mov` (decision 0045); served as `audio/mp4`.
    case m4a

    /// How many leading bytes `sniff` needs to decide.
    package static let sniffLength = 12

    /// The type `bytes` starts like, or `nil`. `bytes` should hold at least `sniffLength` bytes (fewer bytes
    /// can only match when they happen to be a whole signature's worth, which no valid image is that short).
    package static func sniff(_ bytes: some Collection<UInt8>) -> ImageType? {
        let head = Array(bytes.prefix(sniffLength))
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        // ISO base media files start with a `ftyp` box whose major brand names the kind: a HEIF image, QuickTime, or
        // MPEG-4 audio, or an MP4 video brand (AVIF images use the same box with another brand, and are not accepted).
        if starts(with: Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if Self.heifBrands.contains(brand) { return .heic }
            if brand == "qt  " { return .mov }
            if brand == "M4A " { return .m4a }
            if Self.videoBrands.contains(brand) { return .mp4 }
        }
        return nil
    }

    /// Major brands of HEIF still images (ISO 23008-12; an iPhone's photo is `heic`), and the format's generic image
    /// brand. Image sequences (`msf1`, `hevc`, …) are `moov`-based like videos and not accepted.
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "mif1"]

    /// Major brands of MP4 videos (ISO 14496-12/14, Apple's M4V, 3GPP).
    static let videoBrands: Set<String> = [
        "isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "M4VH", "M4VP", "MSNV", "dash",
        "3gp4", "3gp5", "3gp6", "3g2a",
    ]

    /// The extension of the stored file (one of `MediaPath.allowedExtensions`).
    package var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        case .heic: "heic"
        case .mp4, .m4a: "mp4"
        case .mov: "mov"
        }
    }

    /// The `Content-Type` the file is served with.
    package var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        case .m4a: "audio/mp4"
        }
    }
}
