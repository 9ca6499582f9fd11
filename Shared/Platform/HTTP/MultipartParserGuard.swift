import Hummingbird

/// Runs ahead of MultipartKit's `MultipartParser` over the same bytes and refuses (400) a body that would crash
/// the process. MultipartKit 4.7.1 looks up each byte of a part's header *name* in a 128-entry table indexed by
/// the byte, so any byte ≥ 0x80 there traps with "Index out of range" (found by schemathesis: one request took
/// the social service down; media parses uploads the same way). Until MultipartKit checks the bound itself,
/// every caller feeds each chunk through `check` first.
///
/// The guard mirrors the parser's state machine (preamble, boundary matching with the parser's own restart
/// rules, header lines, body), so it stands at a header-name position exactly when the parser does. Where the
/// parser would throw (a syntax error), the guard stops checking: the parser throws there itself, before it
/// reads any later byte.
package struct MultipartParserGuard: Sendable {
    private enum State: Sendable {
        case preamble(Int)
        case preHeaders(expectingLF: Bool)
        case headerName(empty: Bool)
        case headerValue
        case postHeaderValue
        case postHeaders
        case body
        case boundary(Int)
        case done  // epilogue, or a syntax error the parser reports itself
    }

    private let delimiter: [UInt8]
    private var state: State = .preamble(0)

    package init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Throws a 400 `APIError` if feeding `chunk` to the parser (after everything checked so far) would reach a
    /// byte it traps on.
    package mutating func check(_ chunk: ByteBuffer) throws {
        for byte in chunk.readableBytesView {
            if case .done = state { return }
            try step(byte)
        }
    }

    private mutating func step(_ byte: UInt8) throws {
        let cr: UInt8 = 13, lf: UInt8 = 10, colon: UInt8 = 58
        switch state {
        case .preamble(var index):
            if index == 0, byte == delimiter[2] {
                index = 3
            } else if byte == delimiter[index] {
                index += 1
            } else if index > 0, byte == delimiter[0] {
                index = 1
            } else {
                index = 0
            }
            state = index >= delimiter.count ? .preHeaders(expectingLF: false) : .preamble(index)
        case .preHeaders(let expectingLF):
            if !expectingLF && byte == cr {
                state = .preHeaders(expectingLF: true)
            } else if expectingLF && byte == lf {
                state = .headerName(empty: true)
            } else {
                state = .done
            }
        case .headerName(let empty):
            if byte == colon && !empty {
                state = .headerValue
            } else if byte == cr && empty {
                state = .postHeaders
            } else if byte >= 0x80 {
                throw APIError.badRequest("잘못된 multipart 요청입니다. (a part header name contains a non-ASCII byte)")
            } else if Self.isTokenCharacter(byte) {
                state = .headerName(empty: false)
            } else {
                state = .done
            }
        case .headerValue:
            if byte == cr { state = .postHeaderValue }
        case .postHeaderValue:
            state = byte == lf ? .headerName(empty: true) : .done
        case .postHeaders:
            state = byte == lf ? .body : .done
        case .body:
            if byte == delimiter[0] { state = .boundary(1) }
        case .boundary(let index):
            if index >= delimiter.count {
                state = byte == cr ? .preHeaders(expectingLF: true) : .done  // "-": the epilogue; else a syntax error
            } else if byte == delimiter[index] {
                state = .boundary(index + 1)
            } else {
                state = byte == delimiter[0] ? .boundary(1) : .body
            }
        case .done:
            break
        }
    }

    /// RFC 822 token characters (no controls, no tspecials), as MultipartKit's table has them for bytes < 0x80.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        guard byte > 32, byte < 127 else { return false }
        return !"()<>@,;:\\\"/[]?={}".utf8.contains(byte)
    }
}
