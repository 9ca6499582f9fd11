/// A file received from a multipart upload and accepted: its type was recognised by its bytes, it is within the
/// size limit, JPEG metadata has been stripped, and its final bytes sit fsynced in a temp file under the
/// media root. `MediaStore.store` moves it into place; until then it is nobody's.
package struct ReceivedFile: Sendable, Equatable {
    package let temporaryPath: String
    package let type: ImageType
    /// Bytes as stored (after stripping).
    package let size: Int
    /// Lower-case hex SHA-256 of the stored bytes: the file's strong `ETag`.
    package let sha256: String
}

/// What a multipart upload delivered: the accepted files of the file field, in upload order, and the small
/// text fields (other parts, each at most `UploadLimits.maxFieldBytes`).
package struct ReceivedForm: Sendable {
    package var files: [ReceivedFile]
    package var fields: [String: String]

    /// Removes the temp files (after a failure, or when the caller decides not to store them).
    package func discard() async {
        await MediaDisk.removeQuietly(files.map(\.temporaryPath))
    }
}
