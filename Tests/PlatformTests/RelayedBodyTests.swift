import NIOCore
import SNSTestSupport
import Testing

@testable import SNSPlatform

/// A relayed request body (`RelayedBody`): once the callee has answered, the relay stops reading and waits for the read
/// under way, so that the handler never returns while the HTTP client is still inside the body's `next()` (Hummingbird
/// would then drain the body with a second, concurrent `next()`, which traps).
@Suite("Relayed request bodies")
struct RelayedBodyTests {
    actor Events {
        var names: [String] = []
        func add(_ name: String) { names.append(name) }
    }

    @Test func closingWaitsForTheReadUnderWayAndEndsTheBody() async throws {
        let (stream, source) = AsyncStream<ByteBuffer>.makeStream()
        let gate = RelayGate()
        let body = RelayedBody(base: stream, gate: gate)
        let events = Events()
        let reader = Task {
            var iterator = body.makeAsyncIterator()
            var read: [ByteBuffer] = []
            while let chunk = try await iterator.next() { read.append(chunk) }
            return read
        }
        try await eventually("a read is under way") { gate.isReading }
        let closing = Task {
            await gate.close()
            await events.add("closed")
        }
        try await eventually("the gate is closed") { gate.isClosed }
        await events.add("yielded")
        source.yield(ByteBuffer(string: "part"))
        await closing.value
        // The read under way finished with its chunk; the next one ends the body without reading the stream.
        #expect(await events.names == ["yielded", "closed"])
        #expect(try await reader.value == [ByteBuffer(string: "part")])
        source.finish()
    }

    @Test func closingWithNoReadUnderWayReturnsAtOnce() async throws {
        let gate = RelayGate()
        await gate.close()
        #expect(!gate.begin())
        var iterator = RelayedBody(base: AsyncStream<ByteBuffer> { $0.yield(ByteBuffer(string: "x")) }, gate: gate)
            .makeAsyncIterator()
        #expect(try await iterator.next() == nil)
    }
}
