/// What one multipart upload may hold (API conventions §10.7: at most 5 files of at most 5 MB each, videos and voice
/// memos 10 MB, decision 0046). Every bound is
/// enforced while the body streams in, so a request over a limit is refused after reading at most about one
/// file's worth of bytes beyond what is allowed, whatever its size.
package struct UploadLimits: Sendable, Equatable {
    /// Files per request (`SNS_MEDIA_MAX_FILES`).
    package var maxFiles: Int
    /// Bytes per photo as uploaded (`SNS_MEDIA_MAX_FILE_BYTES`).
    package var maxFileBytes: Int
    /// Bytes per video or voice memo as uploaded (`SNS_MEDIA_MAX_VIDEO_BYTES`).
    package var maxVideoBytes: Int
    /// Bytes of a part that is not a file of the expected field (a text field such as `nick`, or a stray part).
    package var maxFieldBytes: Int
    /// Parts of any kind per request.
    package var maxParts: Int
    /// Bytes the multipart framing (preamble, a part's header block) may take before the parser reports
    /// anything: bounds what the parser buffers for header lines.
    package var maxFramingBytes: Int

    package init(
        maxFiles: Int = 5, maxFileBytes: Int = 5 * 1024 * 1024, maxVideoBytes: Int = 10 * 1024 * 1024,
        maxFieldBytes: Int = 8 * 1024, maxParts: Int? = nil, maxFramingBytes: Int = 16 * 1024
    ) {
        self.maxFiles = maxFiles
        self.maxFileBytes = maxFileBytes
        self.maxVideoBytes = maxVideoBytes
        self.maxFieldBytes = maxFieldBytes
        self.maxParts = maxParts ?? maxFiles + 16
        self.maxFramingBytes = maxFramingBytes
    }

    /// The most a whole acceptable body can be: every file and field at its limit, plus framing.
    package var maxBodyBytes: Int {
        maxFiles * max(maxFileBytes, maxVideoBytes) + maxParts * (maxFieldBytes + maxFramingBytes)
    }
}
