import Logging
import NIOCore
import SNSPlatform

/// Reads a request body that *is* one file (no multipart framing: the internal profile-image upload, whose
/// caller already took the file out of the client's form) **as it streams in**, through the same
/// `FilePartWriter` as a multipart file part: the type is recognised from the first bytes (not an image →
/// 400), the read stops at the first byte over `maxFileBytes` (photos) or `maxVideoBytes` (videos and voice memos)
/// (400), metadata is removed on the way and at the end (decisions 0044, 0046), and on any failure every temp file it
/// created is removed. The unread rest of the body is never buffered.
package struct RawFileReceiver: Sendable {
    package let root: MediaRoot
    package let maxFileBytes: Int
    package let maxVideoBytes: Int

    package init(root: MediaRoot, maxFileBytes: Int, maxVideoBytes: Int) {
        self.root = root
        self.maxFileBytes = maxFileBytes
        self.maxVideoBytes = maxVideoBytes
    }

    /// - Parameter photosOnly: refuse videos and voice memos (400) as soon as their first bytes show what they are
    ///   (a profile image, a G0 post's image).
    package func receive<Body: AsyncSequence>(_ body: Body, photosOnly: Bool = false, logger: Logger) async throws
        -> ReceivedFile
    where Body.Element == ByteBuffer {
        let writer = FilePartWriter(
            root: root, maxBytes: maxFileBytes, maxVideoBytes: maxVideoBytes, photosOnly: photosOnly, position: 1)
        var bytesRead = 0
        do {
            for try await chunk in body {
                bytesRead += chunk.readableBytes
                try await writer.append(chunk)
            }
            return try await writer.finish()
        } catch {
            await writer.abandon()
            await MediaDisk.removeQuietly(writer.createdPaths)
            logger.debug("upload refused", metadata: ["bytes_read": "\(bytesRead)", "reason": "\(error)"])
            throw error
        }
    }
}
