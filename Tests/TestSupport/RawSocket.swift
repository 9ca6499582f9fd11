import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Requests over a plain TCP socket, byte for byte as given: requests an HTTP client would refuse to send, and
/// clients that give up half-way.
package enum RawSocket {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Connects, sends everything, half-closes the sending side (unless told not to) and reads until the server
    /// closes. A receive timeout of 30 s guards against a server that never answers.
    package static func exchange(host: String, port: Int, request: [UInt8], halfClose: Bool = true) throws -> [UInt8] {
        let fd = try connected(host: host, port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            // The server may answer and close before taking the whole request (e.g. a header over its limit).
            guard n > 0 else { break }
            sent += n
        }
        if halfClose { shutdown(fd, Int32(SHUT_WR)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            answer.append(contentsOf: buffer[..<n])
        }
        return answer
    }

    /// Connects, sends `request` and closes the connection without reading: a client that gave up mid-request.
    package static func abandon(host: String, port: Int, request: [UInt8]) throws {
        let fd = try connected(host: host, port: port)
        defer { close(fd) }
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private static func connected(host: String, port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var info: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &info) == 0, let address = info else {
            throw Failure(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(info) }
        let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        guard connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "connect \(host):\(port): \(reason)")
        }
        return fd
    }
}
