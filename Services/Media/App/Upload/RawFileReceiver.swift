import Logging
import NIOCore
import SNSPlatform

/// Reads a request body that *is* one file (no multipart framing: the internal profile-image upload, whose
/// caller already took the file out of the client's form) **as it streams in**, through the same
/// `FilePartWriter` as a multipart file part: the type is recognised from the first bytes (not an image →
/// 400), the read stops at the first byte over `maxFileBytes` (400), metadata is removed at the end (decision 0044), and
/// on any failure every temp file it created is removed. The unread rest of the body is never buffered.
package struct RawFileReceiver: Sendable {
    package let root: MediaRoot
    package let maxFileBytes: Int

    package init(root: MediaRoot, maxFileBytes: Int) {
        self.root = root
        self.maxFileBytes = maxFileBytes
    }

    package func receive<Body: AsyncSequence>(_ body: Body, logger: Logger) async throws -> ReceivedFile
    where Body.Element == ByteBuffer {
        let writer = FilePartWriter(root: root, maxBytes: maxFileBytes, position: 1)
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
