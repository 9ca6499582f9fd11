import NIOCore
import Synchronization

/// A client's request body passed on to another service as it streams in (`InternalServiceClient`), which the
/// relaying handler must not return from while the HTTP client is still inside a read of it.
///
/// The callee may answer before it has read the whole body (media refuses an upload at its first bad part), and the
/// HTTP client returns that answer while its upload task may still be waiting in the body's `next()`. If the handler
/// then returns, Hummingbird drains the rest of the request body with a second `next()` on the same stream while the
/// first is pending, which NIO's stream traps on (it took chat down in a test run: an upload media refused, then
/// the next request found no chat). So the relay reads through a gate: `close` stops every later read (they end the
/// body) and waits for the one under way, if any, before the handler goes on. That wait has no bound of its own: the
/// read ends with the client's next bytes, the end of its body or its connection (the gateway buffers a chat
/// upload's body before passing it on, so through it the wait is a local read); returning sooner would trap.
struct RelayedBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let gate: RelayGate

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let gate: RelayGate

        mutating func next() async throws -> ByteBuffer? {
            guard gate.begin() else { return nil }
            defer { gate.end() }
            return try await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), gate: gate) }
}

/// Whether a relayed body's read is under way, and whether reading is over. Sendable: its state is behind a `Mutex`.
final class RelayGate: Sendable {
    private struct State {
        var reading = false
        var closed = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Before a read: false once the gate is closed (the read must not happen).
    func begin() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.reading = true
            return true
        }
    }

    /// After a read: resumes a `close` waiting for it.
    func end() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.reading = false
            defer { state.waiter = nil }
            return state.waiter
        }?.resume()
    }

    /// Stops later reads and returns once no read is under way.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                state.closed = true
                guard state.reading else { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Whether a read is under way, and whether the gate is closed (for tests).
    var isReading: Bool { state.withLock { $0.reading } }
    var isClosed: Bool { state.withLock { $0.closed } }
}
