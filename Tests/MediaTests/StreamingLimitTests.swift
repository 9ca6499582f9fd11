import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MediaService
import NIOCore
import SNSTestSupport
import Synchronization
import Testing

/// A request body generated on demand, that counts how much of it the server actually pulled. Nothing of it
/// exists before it is asked for, so "bytes pulled" is exactly what the handler read.
struct CountingBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let head: [UInt8]
    let fillerLength: Int
    let tail: [UInt8]
    let chunkLength: Int
    let pulled: Counter

    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func add(_ count: Int) { value.add(count, ordering: .relaxed) }
        var total: Int { value.load(ordering: .relaxed) }
    }

    var totalLength: Int { head.count + fillerLength + tail.count }

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: CountingBody
        var offset = 0

        mutating func next() async throws -> ByteBuffer? {
            guard offset < body.totalLength else { return nil }
            var buffer = ByteBuffer()
            var remaining = body.chunkLength
            while remaining > 0 && offset < body.totalLength {
                if offset < body.head.count {
                    let take = Swift.min(remaining, body.head.count - offset)
                    buffer.writeBytes(body.head[offset..<offset + take])
                    offset += take
                    remaining -= take
                } else if offset < body.head.count + body.fillerLength {
                    let take = Swift.min(remaining, body.head.count + body.fillerLength - offset)
                    buffer.writeRepeatingByte(0x42, count: take)  // never 0xFF, never CR: plain scan bytes
                    offset += take
                    remaining -= take
                } else {
                    let start = offset - body.head.count - body.fillerLength
                    let take = Swift.min(remaining, body.tail.count - start)
                    buffer.writeBytes(body.tail[start..<start + take])
                    offset += take
                    remaining -= take
                }
            }
            body.pulled.add(buffer.readableBytes)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}

@Suite("Upload limits are enforced while streaming")
struct StreamingLimitTests {
    static let fiftyMegabytes = 50 * 1024 * 1024

    /// A 50 MB file: refused with 400 after reading little more than the 5 MB limit, with no temp file left
    /// and none ever larger than the limit.
    @Test func aFiftyMegabyteFileIsRefusedWithoutReadingIt() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let jpegHead = Array(ImageFixtures.jpeg.dropLast(2))
            let head = Multipart.head(.file([]), first: true) + jpegHead
            let body = CountingBody(
                head: head, fillerLength: Self.fiftyMegabytes, tail: [0xFF, 0xD9] + Multipart.end,
                chunkLength: 64 * 1024, pulled: .init())
            let response = try await media.post(
                body, to: "/v1/posts/files", token: user.token, length: body.totalLength)
            #expect(response.status.code == 400)
            let limit = media.configuration.maxFileBytes
            #expect(body.pulled.total < limit + 1024 * 1024, "read \(body.pulled.total) of \(body.totalLength) bytes")
            #expect(body.pulled.total < body.totalLength / 5)
            #expect(try media.temporaryFiles().isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: media.root.directory(of: .posts)).isEmpty)
        }
    }

    /// Too many files: refused as the sixth starts, before its bytes (and everything after) are read.
    @Test func aSixthFileStopsTheReadAtItsStart() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            var head: [UInt8] = []
            for index in 0..<5 {
                head += Multipart.head(.file([]), first: index == 0) + ImageFixtures.png
            }
            head += Multipart.head(.file([]), first: false) + Array(ImageFixtures.jpeg.dropLast(2))
            let body = CountingBody(
                head: head, fillerLength: Self.fiftyMegabytes, tail: [0xFF, 0xD9] + Multipart.end,
                chunkLength: 16 * 1024, pulled: .init())
            let response = try await media.post(body, to: "/v1/posts/files", token: user.token)
            #expect(response.status.code == 400)
            #expect(body.pulled.total <= 64 * 1024, "read \(body.pulled.total) bytes")
            #expect(try media.temporaryFiles().isEmpty, "the five accepted temp files are removed too")
        }
    }

    /// Over real HTTP (a live server on a loopback port): a client that sends an oversized file gets a proper
    /// 400 with a JSON message, and the connection stays usable for the next request. (12 MB: the 50 MB case is
    /// proven above without a socket; through one, a debug build under the parallel suite needs minutes to
    /// push and drain 50 MB, which only made this test slow.)
    @Test func anOversizedUploadGetsA400OverHTTP() async throws {
        try await withMediaService(setup: .live) { media in
            let user = try await testUser()
            let big = ImageFixtures.largeJPEG(size: 12 * 1024 * 1024)
            // Sent with URLSession, whose timeout is idle time, not total time: a debug build on a busy machine may
            // take long to drain 12 MB, and the outcome must not depend on that (the test framework's client
            // gives up after 20 s in all).
            let port = try #require(media.client.client.port)
            let http = GatewayClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, apiKey: media.client.apiKey)
            let reply = try await http.send(
                "POST", "/v1/posts/files", body: Data(Array(buffer: Multipart.body([.file(big)]))),
                contentType: Multipart.contentType, headers: ["Authorization": user.token])
            #expect(reply.status == 400)
            #expect(try reply.json.keys == ["message"])
            #expect(try media.temporaryFiles().isEmpty)
            let next = try await media.client.upload([.file(ImageFixtures.png)], token: user.token)
            #expect(next.status == 200)
        }
    }
}
