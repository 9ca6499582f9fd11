import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open POSIX file descriptor. Every blocking call goes through `DiskIO.run`.
///
/// Used by one task at a time (an upload part, a download response); the `Mutex` only makes `close`
/// idempotent and safe against the `deinit` safety net, which closes a descriptor that an error path forgot.
final class FileDescriptor: Sendable {
    let path: String
    private let descriptor: Mutex<Int32?>

    private init(fd: Int32, path: String) {
        self.path = path
        self.descriptor = Mutex(fd)
    }

    deinit {
        if let fd = descriptor.withLock({ $0 }) { _ = systemClose(fd) }
    }

    /// Creates a new file that must not exist yet (`O_EXCL`), for writing and reading (a video's location is zeroed in
    /// place once it is written, decision 0046), mode 0644.
    static func create(_ path: String) async throws -> FileDescriptor {
        try await DiskIO.run {
            let fd = systemOpen(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw DiskError(operation: "create", path: path, code: errno) }
            return FileDescriptor(fd: fd, path: path)
        }
    }

    /// Opens an existing file for reading; `nil` when it does not exist.
    static func openForReading(_ path: String) async throws -> FileDescriptor? {
        try await DiskIO.run {
            let fd = systemOpen(path, O_RDONLY | O_CLOEXEC, 0)
            if fd < 0 {
                if errno == ENOENT { return nil }
                throw DiskError(operation: "open", path: path, code: errno)
            }
            return FileDescriptor(fd: fd, path: path)
        }
    }

    /// Appends all of `buffer` (loops over short writes and EINTR).
    func write(_ buffer: ByteBuffer) async throws {
        guard buffer.readableBytes > 0 else { return }
        try await DiskIO.run { [self] in
            let fd = try self.requireOpen("write")
            try buffer.withUnsafeReadableBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = systemWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw DiskError(operation: "write", path: self.path, code: errno)
                    }
                    offset += written
                }
            }
        }
    }

    /// Overwrites `bytes.count` bytes at `offset` (loops over short writes and EINTR).
    func write(_ bytes: [UInt8], at offset: Int) async throws {
        guard !bytes.isEmpty else { return }
        try await DiskIO.run { [self] in
            let fd = try self.requireOpen("write")
            try bytes.withUnsafeBytes { bytes in
                var done = 0
                while done < bytes.count {
                    let written = systemPwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw DiskError(operation: "write", path: self.path, code: errno)
                    }
                    done += written
                }
            }
        }
    }

    /// Reads up to `length` bytes at `offset` (fewer only at the end of the file).
    func read(at offset: Int, length: Int) async throws -> ByteBuffer {
        try await DiskIO.run { [self] in
            let fd = try self.requireOpen("read")
            var buffer = ByteBufferAllocator().buffer(capacity: length)
            var total = 0
            while total < length {
                var failure: Int32 = 0
                let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length - total) { pointer in
                    let result = systemPread(fd, pointer.baseAddress!, length - total, off_t(offset + total))
                    if result < 0 { failure = errno; return 0 }
                    return result
                }
                if failure == EINTR { continue }
                if failure != 0 { throw DiskError(operation: "read", path: self.path, code: failure) }
                if count == 0 { break }  // end of file
                total += count
            }
            return buffer
        }
    }

    /// The file's current size in bytes.
    func size() async throws -> Int {
        try await DiskIO.run { [self] in
            let fd = try self.requireOpen("stat")
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw DiskError(operation: "stat", path: self.path, code: errno) }
            return Int(info.st_size)
        }
    }

    /// Flushes the file's data to stable storage.
    func sync() async throws {
        try await DiskIO.run { [self] in
            let fd = try self.requireOpen("fsync")
            guard fsync(fd) == 0 else { throw DiskError(operation: "fsync", path: self.path, code: errno) }
        }
    }

    /// Closes the descriptor; calling it again does nothing.
    func close() async {
        guard
            let fd = descriptor.withLock({ state -> Int32? in
                defer { state = nil }; return state
            })
        else { return }
        _ = try? await DiskIO.run { _ = systemClose(fd) }
    }

    private func requireOpen(_ operation: String) throws -> Int32 {
        guard let fd = descriptor.withLock({ $0 }) else {
            throw DiskError(operation: operation, path: path, code: EBADF)
        }
        return fd
    }
}

// The C functions under names that do not collide with our methods.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, pointer, count) }
private func systemPwrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int, _ offset: off_t) -> Int {
    pwrite(fd, pointer, count, offset)
}
private func systemPread(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Int {
    pread(fd, pointer, count, offset)
}
