import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// How a replica leaves without dropping a request (decision 0018).
///
/// On SIGTERM, before the HTTP server's own graceful shutdown, the replica drains for `duration`:
/// - it stops the kernel from completing new connections to its listening socket, accepts and serves what was
///   already queued, then closes the socket, so the gateway's next connection attempt is refused before anything was
///   sent, and the gateway retries that request on another replica (safe for every method: nothing reached us);
/// - it keeps serving requests that arrive on connections the gateway already holds, answering each with
///   `Connection: close`, so the gateway never reuses such a connection;
/// - `/ready` answers 503 (`draining`).
/// Idle connections are closed by the gateway itself (its upstream keep-alive timeout is shorter than the drain),
/// so no connection is closed by us while the gateway may be writing a request into it. Then the usual shutdown
/// runs: finish in-flight requests, stop consumers, relay and producer, close the pool.
///
/// The whole exit is bounded: `limit` after SIGTERM the process ends whatever a component still waits for (a
/// broker or database that does not answer). What was not published stays in the outbox; nothing acknowledged is
/// lost, because every acknowledged write was committed first.
package final class ShutdownDrain: Service, Sendable {
    package let duration: Duration
    package let limit: Duration
    private let state = Mutex<(listener: (any Channel)?, keeper: IdleConnection?)>((nil, nil))
    /// Read on every request (`EdgeMiddleware`, `/ready`): an atomic, not the lock.
    private let draining = Atomic<Bool>(false)
    private let actions = Mutex<[@Sendable () async -> Void]>([])

    /// - Parameters:
    ///   - duration: how long to drain (0 for in-process applications, which no gateway fronts).
    ///   - limit: the longest SIGTERM may take to end the process (nil: unbounded, for in-process applications).
    package init(duration: Duration, limit: Duration?) {
        self.duration = duration
        self.limit = limit ?? .zero
    }

    package var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// The server's listening channel (from `onServerRunning`).
    package func attach(listener: any Channel) {
        state.withLock { $0.listener = listener }
    }

    /// Work to start as soon as the drain begins, alongside it (consumers leave their groups, so the other replicas
    /// take their partitions over while this one still answers).
    package func onDrain(_ action: @escaping @Sendable () async -> Void) {
        actions.withLock { $0.append(action) }
    }

    /// Waits for SIGTERM (graceful shutdown), then drains. Placed after the application in its service group, so
    /// its shutdown runs first and the application's starts only when the drain is over.
    package func run() async throws {
        try? await gracefulShutdown()
        await drain(logger: Logger(label: "sns.shutdown"))
    }

    func drain(logger: Logger) async {
        if limit > .zero { Self.startWatchdog(limit: limit, logger: logger) }
        for action in actions.withLock({ $0 }) { Task { await action() } }
        let listener = state.withLock { $0.listener }
        guard duration > .zero, let listener else {
            draining.store(true, ordering: .relaxed)
            return
        }
        logger.info(
            "draining: no new connections; answering in-flight ones with Connection: close",
            metadata: ["drain_ms": "\(Int(duration.milliseconds))"])
        // Hummingbird's server ends on its own once its listener is closed and its last connection is gone, and its
        // service group takes that for a failure. One idle connection of our own, answered once (so the server
        // surely accepted it), keeps it running until its graceful shutdown closes that connection like any other.
        let keeper = await IdleConnection.open(to: listener.localAddress)
        if keeper == nil { logger.warning("drain: could not open the keep-alive connection; stopping without it") }
        // A connection in the kernel's accept queue when the listener closes is reset, and a POST the gateway had
        // already written into it fails with 502 (never resent: it might have been applied). So first the kernel
        // stops completing new connections (a socket filter that drops what comes to the listener: a gateway that
        // connects now has its SYN dropped, and the retransmission a second later is refused, so it tries another
        // replica with nothing sent); what is queued is accepted and served (answers carry `Connection: close` from
        // here on); then accepting stops, and the listener closes once connections accepted a moment ago have reached
        // the server's loop: one accepted while the listener closes is dropped by NIO's async server channel, which
        // traps ("Deinited NIOAsyncWriter without calling finish()", seen once under a rolling restart). Left: a
        // connection whose handshake was half done when the filter came (one loopback round trip) is reset too.
        let filtered = await Self.refuseNewConnections(to: listener)
        if !filtered { logger.warning("drain: could not stop new connections at the socket; closing it after 50 ms") }
        state.withLock { $0.keeper = keeper }
        draining.store(true, ordering: .relaxed)
        if filtered { try? await Task.sleep(for: .milliseconds(50)) }  // the queue drains into the server
        try? await listener.setOption(ChannelOptions.autoRead, value: false).get()
        try? await Task.sleep(for: .milliseconds(filtered ? 20 : 50))
        try? await listener.close()
        try? await Task.sleep(for: duration)
    }

    /// Attaches a socket filter that drops every packet addressed to `listener` (Linux `SO_ATTACH_FILTER`, one classic
    /// BPF instruction: return 0): new connections' SYNs and handshake-completing ACKs. Connections accepted before
    /// are sockets of their own, unaffected. False where that is not possible (another platform, another channel).
    static func refuseNewConnections(to listener: any Channel) async -> Bool {
        #if os(Linux)
            guard let provider = listener as? any SocketOptionProvider else { return false }
            do {
                try await provider.unsafeSetSocketOption(
                    level: SocketOptionLevel(SOL_SOCKET), name: Self.attachFilter,
                    value: SocketFilterProgram.dropEverything
                ).get()
                return true
            } catch {
                return false
            }
        #else
            return false
        #endif
    }

    /// `SO_ATTACH_FILTER` (<asm-generic/socket.h>; Glibc does not export it).
    static let attachFilter: SocketOptionName = 26

    /// A plain thread, independent of the concurrency runtime and of every component: ends the process `limit`
    /// after SIGTERM if it is still running then.
    static func startWatchdog(limit: Duration, logger: Logger) {
        let thread = Thread {
            Thread.sleep(forTimeInterval: limit.milliseconds / 1000)
            logger.error(
                "shutdown did not finish in time; exiting (unpublished outbox rows stay in the database)",
                metadata: ["limit_ms": "\(Int(limit.milliseconds))"])
            // `_exit`, not `exit`: exit handlers (librdkafka's, the runtime's) may themselves wait on what is stuck.
            fflush(nil)
            _exit(0)
        }
        thread.name = "shutdown-watchdog"
        thread.start()
    }
}

extension ApplicationProtocol {
    /// Runs the application until SIGTERM or SIGINT, draining first (see `ShutdownDrain`).
    package func runService(draining drain: ShutdownDrain) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: [self, drain], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

/// `struct sock_fprog` of <linux/filter.h>: the length of a classic BPF program and where its instructions are (a
/// 16-bit count, then a pointer, at the C layout's offsets 0 and 8, which Swift's layout of these two fields matches).
struct SocketFilterProgram: @unchecked Sendable {  // points only at `dropInstruction`, written once and never freed
    let length: UInt16
    let instructions: UnsafeRawPointer

    /// One instruction, `BPF_RET | BPF_K` with k = 0 ("accept 0 bytes": drop): `struct sock_filter` {u16 code 0x06,
    /// u8 jt 0, u8 jf 0, u32 k 0}, 8 bytes in the host's byte order.
    nonisolated(unsafe) private static let dropInstruction: UnsafeRawPointer = {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: 8)
        memory.storeBytes(of: UInt16(0x06), as: UInt16.self)
        return UnsafeRawPointer(memory)
    }()

    static var dropEverything: SocketFilterProgram { SocketFilterProgram(length: 1, instructions: dropInstruction) }
}
