import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// A file moved into its final place under the media root (not necessarily recorded yet).
package struct StoredFile: Sendable, Equatable {
    package let path: MediaPath
    package let type: ImageType
    package let size: Int
    package let sha256: String
}

/// Stores received files for good: a fresh signed path per file (`MediaPathSigner.issue`, so the posts
/// service can verify it locally), an atomic move from the temp directory to `<root>/<kind>/<name>.<ext>`
/// (fsynced file, `rename`, fsynced directory), then — in one transaction — a `files` row and a
/// `media-stored` event per file. If that transaction fails, the moved files are removed again, so a file is
/// either stored and recorded or gone.
///
/// Reusable by any upload endpoint: post uploads store `kind: .posts`, the internal profile-image upload
/// `kind: .profiles` (both with `store`); `place` + `record` + `remove` let an endpoint record files in the
/// same transaction as its own writes.
package struct MediaStore: Sendable {
    package let root: MediaRoot
    package let signer: MediaPathSigner
    package let catalog: MediaCatalog
    let postgres: DatabasePool
    let outbox: Outbox

    package init(
        root: MediaRoot, signer: MediaPathSigner, catalog: MediaCatalog, postgres: DatabasePool, outbox: Outbox
    ) {
        self.root = root
        self.signer = signer
        self.catalog = catalog
        self.postgres = postgres
        self.outbox = outbox
    }

    /// Places and records `files` as `kind` files of `owner`, in order; returns their paths. On failure
    /// nothing of them remains (temp files included).
    package func store(
        _ files: [ReceivedFile], kind: MediaPath.Kind, owner: String, trace: TraceContext, logger: Logger
    )
        async throws -> [MediaPath]
    {
        let stored: [StoredFile]
        do {
            stored = try await place(files, kind: kind, owner: owner)
        } catch {
            await MediaDisk.removeQuietly(files.map(\.temporaryPath))
            throw error
        }
        do {
            try await postgres.transaction(logger: logger) { connection in
                try await record(stored, owner: owner, trace: trace, on: connection, logger: logger)
            }
        } catch let timeout as TransactionTimeout {
            // The outcome is unknown (the commit may still land); removing the files could leave rows without
            // them. Leave them: if the transaction did roll back they are unreachable, never served.
            logger.error(
                "media transaction timed out; stored files left in place", metadata: ["count": "\(stored.count)"])
            throw timeout
        } catch {
            await remove(stored)
            throw error
        }
        logger.info(
            "media stored",
            metadata: [
                "count": "\(stored.count)", "kind": "\(kind.rawValue)", "bytes": "\(stored.reduce(0) { $0 + $1.size })",
            ])
        return stored.map(\.path)
    }

    /// Moves the temp files into place under fresh paths (fsyncing the directory once at the end). If one move
    /// fails, the ones already moved are removed and the error is thrown; the remaining temp files are the
    /// caller's to discard.
    package func place(_ files: [ReceivedFile], kind: MediaPath.Kind, owner: String) async throws -> [StoredFile] {
        var placed: [StoredFile] = []
        do {
            for file in files {
                let path = signer.issue(kind: kind, fileExtension: file.type.fileExtension, owner: owner)
                try await MediaDisk.rename(file.temporaryPath, to: root.location(of: path))
                placed.append(StoredFile(path: path, type: file.type, size: file.size, sha256: file.sha256))
            }
            try await MediaDisk.syncDirectory(root.directory(of: kind))
        } catch {
            await remove(placed)
            throw error
        }
        return placed
    }

    /// Records placed files (rows and `media-stored` events) inside the caller's transaction.
    package func record(
        _ files: [StoredFile], owner: String, trace: TraceContext, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let now = Date()
        for file in files {
            try await catalog.insertFile(file, owner: owner, on: connection, logger: logger)
            let event = MediaStored(
                path: file.path.string, userId: owner, contentType: file.type.contentType, size: file.size,
                storedAt: now)
            try await outbox.append(event, aggregateId: owner, trace: trace, on: connection, logger: logger)
        }
    }

    /// Removes placed files from disk (after their transaction failed).
    package func remove(_ files: [StoredFile]) async {
        await MediaDisk.removeQuietly(files.map { root.location(of: $0.path) })
    }
}
