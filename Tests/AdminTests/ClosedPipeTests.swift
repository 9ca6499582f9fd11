import Foundation
import SNSTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `sns-admin … | head`: the reader goes away before the tool has written; the tool ends quietly with status 0.
@Suite("sns-admin and a closed pipe")
struct ClosedPipeTests {
    @Test func aReaderThatWentAwayEndsTheToolQuietly() throws {
        let binary = URL(fileURLWithPath: try TestEnvironment.binaryDirectory()).appendingPathComponent("sns-admin")
            .path
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (reader, writer) = (ends[0], ends[1])
        // The only reader is closed before the tool starts, so its first write fails with EPIPE.
        close(reader)
        defer { close(writer) }
        let child = try ChildProcess.spawn(
            "/bin/bash",
            arguments: ["-c", #"exec "$0" catalog --json >&"$1""#, binary, String(writer)],
            environment: ["PATH": "/usr/bin:/bin"], standardError: .pipe)
        let errors = String(decoding: child.standardError?.readAllRetryingInterrupts() ?? Data(), as: UTF8.self)
        #expect(child.waitUntilExit() == .exited(0), "\(errors)")
        #expect(!errors.contains("Fatal error"), "\(errors)")
    }
}
