import NIOCore
import Testing

@testable import BenchTool

/// `ReplyParser` reads the gateway's replies for the load generator: any fragmentation, both body framings, and
/// whether the connection may be reused.
@Suite("Load generator reply parser")
struct ReplyParserTests {
    /// Feeds `text` in pieces of `size` bytes and returns what the parser reported, and after which piece.
    private func parse(_ text: String, pieces size: Int) throws -> (reply: LoadReply, reusable: Bool, at: Int)? {
        var parser = ReplyParser()
        let bytes = Array(text.utf8)
        var start = 0
        var piece = 0
        while start < bytes.count {
            var buffer = ByteBuffer(bytes: bytes[start..<min(start + size, bytes.count)])
            start += size
            piece += 1
            if let (reply, reusable) = try parser.parse(&buffer) { return (reply, reusable, piece) }
        }
        return nil
    }

    static let sized =
        "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"data\":[]}"
    static let chunked =
        "HTTP/1.1 201 Created\r\ntransfer-encoding:  Chunked \r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n"

    @Test("A reply with Content-Length, whole or one byte at a time, ends with its last body byte")
    func contentLength() throws {
        for size in [1, 2, 7, 1000] {
            let parsed = try #require(try parse(Self.sized, pieces: size))
            #expect(parsed.reply.status == 200)
            #expect(parsed.reply.bodyBytes == 11)
            #expect(parsed.reusable)
            #expect(parsed.at == (Self.sized.utf8.count + size - 1) / size, "complete only with its last byte")
        }
    }

    @Test("A chunked reply counts its chunks' bytes and ends after the trailers")
    func chunked() throws {
        for size in [1, 3, 1000] {
            let parsed = try #require(try parse(Self.chunked, pieces: size))
            #expect(parsed.reply.status == 201)
            #expect(parsed.reply.bodyBytes == 11)
            #expect(parsed.reusable)
        }
    }

    @Test("Connection: close, HTTP/1.0 and bytes after the reply make the connection not reusable")
    func notReusable() throws {
        let close = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
        #expect(try parse(close, pieces: 100)?.reusable == false)
        let old = "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"
        #expect(try parse(old, pieces: 100)?.reusable == false)
        let oldKeepAlive = "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok"
        #expect(try parse(oldKeepAlive, pieces: 100)?.reusable == true)
        let extra = Self.sized + "HTTP/1.1"
        #expect(try parse(extra, pieces: 1000)?.reusable == false)
    }

    @Test("204 and 304 have no body; a reply without framing runs to the end of the connection")
    func bodylessAndUntilClose() throws {
        let empty = try #require(try parse("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", pieces: 100))
        #expect(empty.reply.status == 204 && empty.reply.bodyBytes == 0 && empty.reusable)

        var parser = ReplyParser()
        var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\nsome bytes")
        #expect(try parser.parse(&buffer) == nil)
        var more = ByteBuffer(string: " and more")
        #expect(try parser.parse(&more) == nil)
        #expect(parser.endOfStream()?.bodyBytes == 19)
        #expect(ReplyParser().endOfStream() == nil, "a connection that ends before a reply's head ended is a failure")
    }

    @Test("Malformed replies are errors, not replies")
    func malformed() {
        for text in [
            "SMTP ready\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
            "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
        ] {
            #expect(throws: ReplyParser.Malformed.self, "\(text.debugDescription)") { try parse(text, pieces: 4) }
        }
    }

    @Test("A head line longer than 16 KiB is refused")
    func longLine() {
        let text = "HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "a", count: 20_000)
        #expect(throws: ReplyParser.Malformed.self) { try parse(text, pieces: 4096) }
    }
}
