/// A file received from a multipart upload and accepted: its type was recognised by its bytes, it is within the
/// size limit, JPEG metadata has been stripped, and its final bytes sit fsynced in a temp file under the
/// media root. `MediaStore.store` moves it into place; until then it is nobody's.
public struct ReceivedFile: Sendable, Equatable {
    public let temporaryPath: String
    public let type: ImageType
    /// Bytes as stored (after stripping).
    public let size: Int
    /// Lower-case hex SHA-256 of the stored bytes: the file's strong `ETag`.
    public let sha256: String
}

/// What a multipart upload delivered: the accepted files of the file field, in upload order, and the small
/// text fields (other parts, each at most `UploadLimits.maxFieldBytes`).
public struct ReceivedForm: Sendable {
    public var files: [ReceivedFile]
    public var fields: [String: String]

    /// Removes the temp files (after a failure, or when the caller decides not to store them).
    public func discard() async {
        await MediaDisk.removeQuietly(files.map(\.temporaryPath))
    }
}
