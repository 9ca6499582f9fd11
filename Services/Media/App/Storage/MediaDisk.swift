import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Path-level file-system operations of the media store (rename, unlink, directory sync), each run through
/// `DiskIO.run`, never on the cooperative pool.
enum MediaDisk {
    /// `rename(2)`: atomic within one file system, which is why temp files live under the media root.
    static func rename(_ source: String, to destination: String) async throws {
        try await DiskIO.run {
            guard systemRename(source, destination) == 0 else {
                throw DiskError(operation: "rename", path: destination, code: errno)
            }
        }
    }

    /// Removes a file; a file that is already gone counts as removed.
    static func remove(_ path: String) async throws {
        try await DiskIO.run {
            guard unlink(path) == 0 || errno == ENOENT else {
                throw DiskError(operation: "unlink", path: path, code: errno)
            }
        }
    }

    /// Removes files, ignoring failures (clean-up after an error; the stale-temp sweep catches leftovers).
    static func removeQuietly(_ paths: [String]) async {
        guard !paths.isEmpty else { return }
        _ = try? await DiskIO.run {
            for path in paths { _ = unlink(path) }
        }
    }

    /// `fsync` on a directory, so renames into it survive a crash.
    static func syncDirectory(_ path: String) async throws {
        try await DiskIO.run {
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw DiskError(operation: "open directory", path: path, code: errno) }
            defer { _ = close(fd) }
            guard fsync(fd) == 0 else { throw DiskError(operation: "fsync directory", path: path, code: errno) }
        }
    }

    /// Creates the directories (and their parents) if missing.
    static func createDirectories(_ paths: [String]) async throws {
        try await DiskIO.run {
            for path in paths {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            }
        }
    }

    /// Whether a regular file exists at `path`, and its size.
    static func fileSize(_ path: String) async throws -> Int? {
        try await DiskIO.run {
            var info = stat()
            guard stat(path, &info) == 0 else {
                if errno == ENOENT { return nil }
                throw DiskError(operation: "stat", path: path, code: errno)
            }
            return Int(info.st_size)
        }
    }

    /// Deletes regular files in `directory` last modified before `cutoff`; returns how many. Used for temp
    /// files left behind by a crash in the middle of an upload (a live upload touches its file constantly).
    static func removeFiles(in directory: String, modifiedBefore cutoff: Date, limit: Int) async throws -> Int {
        try await DiskIO.run {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            var removed = 0
            for name in names where removed < limit {
                let path = directory + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                #if canImport(Darwin)
                    let seconds = info.st_mtimespec.tv_sec
                #else
                    let seconds = info.st_mtim.tv_sec
                #endif
                let modified = Date(timeIntervalSince1970: TimeInterval(seconds))
                if modified < cutoff, unlink(path) == 0 { removed += 1 }
            }
            return removed
        }
    }
}

private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
