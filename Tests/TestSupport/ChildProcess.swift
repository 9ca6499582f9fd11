import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`, for tests that run the real executables (services, the dev
/// broker, `sns-admin`, scripts). Not Foundation's `Process`: on Linux its `run()` crashes intermittently (a
/// 256-byte over-read of `/proc/self/fd` dirents in `findMaximumOpenFromProcSelfFD`, swift-corelibs-foundation
/// PR #5472, unfixed in Swift 6.3.1) — seen here about once in three full runs once the suite kept many sockets
/// open; and its `readDataToEndOfFile()` traps on EINTR.
package final class ChildProcess: Sendable {
    package enum Output: Sendable {
        case null
        /// Appended to this file (created if missing).
        case file(String)
        /// A pipe; read it with `standardOutput` / `standardError`.
        case pipe
    }

    /// How it ended.
    package enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    package let processIdentifier: pid_t
    /// The read ends of `.pipe` outputs.
    package let standardOutput: FileHandle?
    package let standardError: FileHandle?
    private let ended = Mutex<Termination?>(nil)

    private init(pid: pid_t, standardOutput: FileHandle?, standardError: FileHandle?) {
        self.processIdentifier = pid
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Spawns are serialised: a pipe is made close-on-exec right after it is created (glibc's `pipe2` is not
    /// imported), and no other spawn may run in between and let a child inherit its write end (the reader would
    /// then never see end of file).
    private static let spawnLock = Mutex(())

    package static func spawn(
        _ executable: String, arguments: [String] = [], environment: [String: String],
        standardOutput: Output = .null, standardError: Output = .null
    ) throws -> ChildProcess {
        try spawnLock.withLock { _ in
            try spawnLocked(
                executable, arguments: arguments, environment: environment,
                standardOutput: standardOutput, standardError: standardError)
        }
    }

    private static func spawnLocked(
        _ executable: String, arguments: [String], environment: [String: String],
        standardOutput: Output, standardError: Output
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32: FileHandle] = [:]
        var childEnds: [Int32] = []
        for (target, output) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
            switch output {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw SpawnFailure(executable: executable, code: errno) }
                _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
                _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
                posix_spawn_file_actions_adddup2(&actions, ends[1], target)  // dup2 clears CLOEXEC on the target
                parentEnds[target] = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
                childEnds.append(ends[1])
            }
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        for end in childEnds { close(end) }
        guard code == 0 else { throw SpawnFailure(executable: executable, code: code) }
        return ChildProcess(pid: pid, standardOutput: parentEnds[1], standardError: parentEnds[2])
    }

    package struct SpawnFailure: Error, CustomStringConvertible {
        package let executable: String
        package let code: Int32
        package var description: String { "cannot start \(executable): \(String(cString: strerror(code)))" }
    }

    package func signal(_ number: Int32) {
        guard termination == nil else { return }
        kill(processIdentifier, number)
    }

    /// How it ended, or nil while it runs (reaps it if it has ended).
    package var termination: Termination? { reap(blocking: false) }

    package var isRunning: Bool { termination == nil }

    /// Blocks until it ends. Call from a Dispatch thread, or only right after SIGKILL, not on the Swift
    /// concurrency pool for anything long.
    @discardableResult
    package func waitUntilExit() -> Termination {
        reap(blocking: true) ?? .exited(-1)
    }

    /// Waits off the Swift concurrency pool.
    @discardableResult
    package func exit() async -> Termination {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.waitUntilExit()) }
        }
    }

    private func reap(blocking: Bool) -> Termination? {
        ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            while true {
                let result = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
                if result == -1 && errno == EINTR { continue }
                guard result == processIdentifier else { return nil }
                break
            }
            // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (the C macros are not imported).
            let termination: Termination =
                (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            ended = termination
            return termination
        }
    }
}

extension FileHandle {
    /// Everything until end of file, like `readDataToEndOfFile()`, but a read interrupted by a signal is retried
    /// (Foundation's version traps on EINTR, and the test process gets SIGCHLD for every child that ends).
    package func readAllRetryingInterrupts() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let descriptor = fileDescriptor
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }
}
