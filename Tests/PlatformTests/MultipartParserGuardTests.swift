import MultipartKit
import NIOCore
import SNSPlatform
import Testing

/// MultipartKit 4.7.1 traps on a byte ≥ 0x80 in a part's header name; the guard must refuse exactly those bodies
/// (whatever the chunking), before the parser sees the byte, and let every well-formed body through.
@Suite("Multipart parser guard")
struct MultipartParserGuardTests {
    static let boundary = "c81e3fec2a432ce65c9587f955a54d2d"

    /// Feeds `body` in chunks of `size` bytes to the guard, then (if it passed) to the parser; true if the guard refused.
    func refused(_ body: [UInt8], chunk size: Int) throws -> Bool {
        var guard_ = MultipartParserGuard(boundary: Self.boundary)
        let parser = MultipartParser(boundary: Self.boundary)
        var start = 0
        while start < body.count {
            let chunk = ByteBuffer(bytes: body[start..<min(start + size, body.count)])
            do { try guard_.check(chunk) } catch let error as APIError {
                #expect(error.status.code == 400)
                return true
            }
            // A syntax error is the parser's own 400, and its callers stop there (fed on, it would resume in a stale
            // state); a trap would end the test run.
            do { try parser.execute(chunk) } catch { return false }
            start += size
        }
        return false
    }

    @Test(arguments: [1, 2, 7, 4096])
    func nonASCIIHeaderNamesAreRefused(chunk: Int) throws {
        // What schemathesis sent to PUT /v1/users/me/profile: a part whose "header name" starts with C2 83.
        let crash: [UInt8] =
            Array("--\(Self.boundary)\r\n".utf8) + [0xC2, 0x83] + Array("è7--\(Self.boundary)--\r\n".utf8)
        #expect(try refused(crash, chunk: chunk))
        let secondHeader = Array(
            "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"nick\"\r\nX-\u{e9}: 1\r\n\r\nv\r\n--\(Self.boundary)--\r\n"
                .utf8)
        #expect(try refused(secondHeader, chunk: chunk))
        let secondPart = Array(
            "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--\(Self.boundary)\r\n\u{fc}: x\r\n\r\nw\r\n--\(Self.boundary)--\r\n"
                .utf8)
        #expect(try refused(secondPart, chunk: chunk))
    }

    @Test(arguments: [1, 3, 4096])
    func wellFormedBodiesPass(chunk: Int) throws {
        // Non-ASCII in header values, in bodies, in a preamble, and a boundary-like text inside a body: all fine.
        let body =
            Array(
                "preamble \u{e9}\r\n--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"nick\"; filename=\"\u{d55c}.png\"\r\n\r\n\u{d55c}\u{ae00} --\(Self.boundary)x \u{fc}\r\n--\(Self.boundary)\r\nContent-Type: image/png\r\n\r\n"
                    .utf8)
            + [0x89, 0x50, 0x0D, 0x0A, 0xFF, 0x80] + Array("\r\n--\(Self.boundary)--\r\nepilogue \u{e9}: x".utf8)
        #expect(try !refused(body, chunk: chunk))
    }

    @Test func syntaxErrorsAreLeftToTheParser() throws {
        // A control character in a header name: the parser throws there; the guard does not need to refuse.
        let body = Array("--\(Self.boundary)\r\nBad\u{1}Name: x\r\n\r\n\u{e9}\r\n--\(Self.boundary)--\r\n".utf8)
        #expect(try !refused(body, chunk: 5))
    }
}
