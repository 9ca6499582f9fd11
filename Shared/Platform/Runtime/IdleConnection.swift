import Foundation
import NIOCore

/// A loopback connection to the service's own listener that has completed one request (`GET /health`) and stays
/// idle until the server closes it.
final class IdleConnection: Sendable {
    let descriptor: Int32

    /// Blocking socket calls (bounded by 2 s timeouts) on a thread of their own: tasks run on the server's event
    /// loops here (`ConcurrencyExecutor`), and blocking one of them could block the very server being called.
    static func open(to address: SocketAddress?) async -> IdleConnection? {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: IdleConnection(to: address)) }.start()
        }
    }

    init?(to address: SocketAddress?) {
        guard let address, let port = address.port else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = in_port_t(UInt16(port).bigEndian)
        sin.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        let request = Array("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        var reply = [UInt8](repeating: 0, count: 512)
        guard connected, send(fd, request, request.count, 0) == request.count, recv(fd, &reply, reply.count, 0) > 0
        else {
            close(fd)
            return nil
        }
        self.descriptor = fd
    }

    deinit { close(descriptor) }
}
