import Foundation
import Synchronization

/// Loopback ports for the service processes tests start themselves (the mini-stacks, `ServiceProcessTests`).
///
/// A port the kernel hands out for `bind(0)` comes from the ephemeral range (32768–60999 by default), the same range
/// every outgoing connection of the suite draws its local port from: between closing the probe socket and the
/// service's own `bind`, an outgoing connection may take it ("Address already in use"). So these come from below
/// that range — 20000–27999, clear of the local stack's profiles (dev 8080–8191, test 18080–18191, check
/// 28080–28191) — handed out once per test process by a counter, each checked bindable before it is returned.
enum ListeningPorts {
    private static let range = 20_000..<28_000
    private static let next = Mutex(range.lowerBound + Int(getpid() % 4_000))

    static func reserve() throws -> Int {
        for _ in 0..<range.count {
            let port = next.withLock { value in
                defer { value = value + 1 < range.upperBound ? value + 1 : range.lowerBound }
                return value
            }
            if isBindable(port) { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Binds as the services do (`SO_REUSEADDR`, so a port left in TIME_WAIT by an earlier run counts as free).
    private static func isBindable(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
