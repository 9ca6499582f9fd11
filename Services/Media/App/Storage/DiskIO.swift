import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the media store's blocking file-system calls (open, write, fsync, rename, unlink, pread) run: NIO's
/// blocking-I/O thread pool (`NIOThreadPool.singleton`, bounded, shared with Hummingbird's `FileIO`), never a
/// thread of the Swift cooperative pool.
///
/// Why not `NIOFileSystem`'s handles: an upload keeps a file open across many parser callbacks (no single
/// scope to put `withFileHandle` around), and an unclosed `NIOFileSystem` handle is a `fatalError` in its
/// `deinit`, while its `close()` is skipped when the task is already cancelled (a client that disconnects).
/// Our own `FileDescriptor` closes in `deinit` as a safety net, and `run` is deliberately not
/// cancellation-aware, so clean-up (close, unlink) still happens for a cancelled request.
enum DiskIO {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any(), body)
            .get()
    }
}

/// A failed system call, with the path it concerned (server-side paths only; never shown to clients).
struct DiskError: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let code: Int32

    var description: String { "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))" }

    var isNotFound: Bool { code == ENOENT }
}
