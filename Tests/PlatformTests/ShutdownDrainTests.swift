import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import SNSPlatform

#if canImport(Glibc)
    import Glibc
#endif

/// The drain's first step (decision 0018): once the listener's socket filter is on, the kernel completes no new
/// connection, so nothing new waits in the accept queue to be reset when the listener closes; connections made
/// before are untouched. The whole drain under a rolling restart is `ResilienceTests`'.
@Suite("Shutdown drain: the listener's socket filter")
struct ShutdownDrainTests {
    @Test func theProgramHasTheKernelsLayout() {
        // `struct sock_fprog` on a 64-bit system: a 16-bit length at 0, the instructions' pointer at 8, 16 bytes.
        #expect(MemoryLayout<SocketFilterProgram>.offset(of: \.instructions) == MemoryLayout<UnsafeRawPointer>.size)
        #expect(MemoryLayout<SocketFilterProgram>.size == 2 * MemoryLayout<UnsafeRawPointer>.size)
    }

    #if os(Linux)
        @Test func noNewConnectionCompletesOnceTheFilterIsOn() async throws {
            let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: 0).get()
            let port = try #require(server.localAddress?.port)
            let before = try Self.connect(port: port)
            defer { close(before.socket) }
            #expect(before.connected, "a connection completes while the listener has no filter")

            #expect(await ShutdownDrain.refuseNewConnections(to: server))
            let after = try Self.connect(port: port)
            defer { close(after.socket) }
            // On loopback a handshake takes microseconds; 300 ms without one means the kernel did not complete it.
            #expect(!after.connected, "no connection completes once the filter is on")
            try await server.close()
        }

        /// A non-blocking connect to 127.0.0.1:`port`, and whether it completed within 300 ms.
        static func connect(port: Int) throws -> (socket: Int32, connected: Bool) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            try #require(fd >= 0)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let started = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if started == 0 { return (fd, true) }
            try #require(errno == EINPROGRESS, "connect: errno \(errno)")
            var poll = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard Glibc.poll(&poll, 1, 300) == 1 else { return (fd, false) }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            return (fd, error == 0)
        }
    #endif
}
