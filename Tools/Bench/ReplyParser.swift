import NIOCore

/// Reads one HTTP/1.1 reply at a time from a connection's bytes, as they arrive in any fragments: its status, how many
/// body bytes it had, and whether the connection may carry the next request. The load generator needs nothing more,
/// so nothing more is decoded: no header values are kept and the body is counted, not copied.
///
/// Bodies are framed by `Content-Length` or `Transfer-Encoding: chunked`, as the gateway sends them; a reply with
/// neither runs to the end of the connection (`endOfStream`). 1xx, 204 and 304 replies have no body.
struct ReplyParser {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = "malformed reply: \(description)" }
    }

    private enum State {
        case statusLine
        case headers
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
    }

    /// A head longer than this is not from the gateway.
    static let maxLine = 16 * 1024

    private var state = State.statusLine
    private var reply = LoadReply(status: 0, bodyBytes: 0)
    private var keepAlive = true
    private var contentLength: Int?
    private var chunked = false
    /// The start of a line that has not ended yet in the bytes read so far (empty in the common case).
    private var partialLine = ByteBuffer()

    /// Before each request.
    mutating func reset() {
        self = ReplyParser()
    }

    /// Consumes `bytes`; returns the reply once it is complete, with whether the connection may be reused (not if the
    /// server said `Connection: close` or sent anything after the reply).
    mutating func parse(_ bytes: inout ByteBuffer) throws -> (reply: LoadReply, reusable: Bool)? {
        while true {
            switch state {
            case .statusLine:
                guard let line = try readLine(&bytes) else { return nil }
                try parseStatusLine(line)
                state = .headers
            case .headers:
                guard let line = try readLine(&bytes) else { return nil }
                if line.readableBytes > 0 {
                    try parseHeader(line)
                } else if let done = try startBody() {
                    return finished(done, leftover: bytes)
                }
            case .body(let remaining):
                let left = countBody(&bytes, upTo: remaining)
                guard left == 0 else {
                    state = .body(remaining: left)
                    return nil
                }
                return finished(reply, leftover: bytes)
            case .chunkSize:
                guard let line = try readLine(&bytes) else { return nil }
                let size = try Self.chunkSize(line)
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let left = countBody(&bytes, upTo: remaining)
                guard left == 0 else {
                    state = .chunkData(remaining: left)
                    return nil
                }
                state = .chunkEnd
            case .chunkEnd:
                guard let line = try readLine(&bytes) else { return nil }
                guard line.readableBytes == 0 else { throw Malformed("a chunk longer than its size") }
                state = .chunkSize
            case .trailers:
                guard let line = try readLine(&bytes) else { return nil }
                if line.readableBytes == 0 { return finished(reply, leftover: bytes) }
            case .untilClose:
                reply.bodyBytes += bytes.readableBytes
                bytes.moveReaderIndex(forwardBy: bytes.readableBytes)
                return nil
            }
        }
    }

    /// Skips and counts up to `remaining` body bytes; returns how many are still to come.
    private mutating func countBody(_ bytes: inout ByteBuffer, upTo remaining: Int) -> Int {
        let taken = min(remaining, bytes.readableBytes)
        bytes.moveReaderIndex(forwardBy: taken)
        reply.bodyBytes += taken
        return remaining - taken
    }

    /// The connection ended: the reply, if it was one that runs to the end of the connection.
    func endOfStream() -> LoadReply? {
        guard case .untilClose = state else { return nil }
        return reply
    }

    private mutating func finished(_ reply: LoadReply, leftover: ByteBuffer) -> (reply: LoadReply, reusable: Bool) {
        let reusable = keepAlive && leftover.readableBytes == 0
        self = ReplyParser()
        return (reply, reusable)
    }

    /// After the empty line that ends the head: how the body is framed, or the reply itself if it has none.
    private mutating func startBody() throws -> LoadReply? {
        if (100..<200).contains(reply.status) || reply.status == 204 || reply.status == 304 { return reply }
        if chunked {
            state = .chunkSize
        } else if let contentLength {
            if contentLength == 0 { return reply }
            state = .body(remaining: contentLength)
        } else {
            keepAlive = false
            state = .untilClose
        }
        return nil
    }

    /// The next line without its line break (CRLF, or a bare LF), or nil when it has not ended yet.
    private mutating func readLine(_ bytes: inout ByteBuffer) throws -> ByteBuffer? {
        guard let newline = bytes.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            partialLine.writeBuffer(&bytes)
            guard partialLine.readableBytes <= Self.maxLine else { throw Malformed("a line longer than 16 KiB") }
            return nil
        }
        var line = bytes.readSlice(length: newline - bytes.readerIndex + 1)!
        if partialLine.readableBytes > 0 {
            partialLine.writeBuffer(&line)
            line = partialLine
            partialLine = ByteBuffer()
        }
        line.moveWriterIndex(to: line.writerIndex - 1)  // "\n"
        if line.readableBytesView.last == UInt8(ascii: "\r") { line.moveWriterIndex(to: line.writerIndex - 1) }
        return line
    }

    /// `HTTP/1.1 200 OK`
    private mutating func parseStatusLine(_ line: ByteBuffer) throws {
        let view = line.readableBytesView
        guard view.count >= 12, view.starts(with: "HTTP/1.".utf8) else { throw Malformed("status line") }
        let minor = view[view.startIndex + 7]
        let digits = view[(view.startIndex + 9)..<(view.startIndex + 12)]
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw Malformed("status code")
        }
        reply.status = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        keepAlive = minor != UInt8(ascii: "0")  // HTTP/1.0 closes unless it says otherwise
    }

    private mutating func parseHeader(_ line: ByteBuffer) throws {
        let view = line.readableBytesView
        guard let colon = view.firstIndex(of: UInt8(ascii: ":")) else { throw Malformed("header line") }
        let name = view[view.startIndex..<colon]
        let value = view[(colon + 1)...].trimmingSpaces
        if Self.equalsIgnoringCase(name, "content-length") {
            guard !value.isEmpty, value.count <= 18,
                value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { throw Malformed("Content-Length") }
            contentLength = value.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        } else if Self.equalsIgnoringCase(name, "transfer-encoding") {
            chunked = Self.equalsIgnoringCase(value, "chunked")
            guard chunked else { throw Malformed("a transfer coding other than chunked") }
        } else if Self.equalsIgnoringCase(name, "connection") {
            if Self.equalsIgnoringCase(value, "close") { keepAlive = false }
            if Self.equalsIgnoringCase(value, "keep-alive") { keepAlive = true }
        }
    }

    /// A chunk's size line: hexadecimal digits, then optional extensions after `;`.
    private static func chunkSize(_ line: ByteBuffer) throws -> Int {
        var size = 0
        var digits = 0
        for byte in line.readableBytesView {
            if byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { break }
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = Int(byte - UInt8(ascii: "A")) + 10
            default: throw Malformed("chunk size")
            }
            digits += 1
            guard digits <= 15 else { throw Malformed("chunk size") }
            size = size * 16 + digit
        }
        guard digits > 0 else { throw Malformed("chunk size") }
        return size
    }

    private static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, lower in
                let folded = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
                return folded == lower
            }
        }
    }
}

extension ByteBufferView {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: ByteBufferView {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        let last = lastIndex(where: { !isSpace($0) })!
        return self[first...last]
    }
}
