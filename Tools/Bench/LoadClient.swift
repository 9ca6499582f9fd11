import NIOCore
import NIOHTTP1
import NIOPosix

/// A reply's status and how many body bytes it had (an empty page is a few dozen: the mix's figures mean nothing
/// if its feeds are empty).
struct LoadReply: Sendable {
    var status: Int
    var bodyBytes: Int
}

/// One request of the load, built before it is due: its bytes on the wire, head and body, written as they are.
struct LoadRequest: Sendable {
    var bytes: ByteBuffer
}

/// The load generator's HTTP/1.1 client: up to `connections` keep-alive connections to the gateway, one request at a
/// time on each, all on one event loop, with no other state than a stack of idle connections and a queue of
/// requests waiting for one.
///
/// `sns-bench load` ran on AsyncHTTPClient before: its pool and request state machines cost ~0.24 ms of CPU per
/// request, 15 % of the machine at 1 000 req/s, taken from the stack it measures. Here a request is a write and a
/// promise (bench/results/2026-11-27-pools-without-timers.md). Requests are written as bytes built beforehand and
/// replies read by `ReplyParser` (status, body size, keep-alive), without NIO's HTTP encoder and decoder, and a reply
/// completes its request by a callback on the loop, without a task per request
/// (bench/results/2026-12-01-a-lighter-load-generator-and-the-event-path.md). The seeder still uses AsyncHTTPClient
/// (`GatewayClient`), where convenience matters more than CPU.
///
/// Requests time out without a timer each: NIO keeps scheduled tasks in a heap whose removal searches it linearly,
/// so a timer per request, cancelled by its reply, cost the load generator ~7 % of its CPU at 1 000 req/s, more the
/// more requests are in flight. Once a second a sweep fails what waited longer than `timeout` for a connection, and
/// the request of every connection whose reply is overdue; that connection is closed, so the request ends on the
/// wire too.
final class LoadClient: Sendable {
    let loop: any EventLoop
    private let host: String
    private let port: Int
    private let hostHeader: String
    // Touched only on `loop` (every entry point hops there first).
    private let pool: NIOLoopBound<ConnectionPool>
    private let sweep: NIOLoopBound<RepeatedTask>

    /// `baseURL`: `http://host:port` (no TLS: the gateway is local to the benchmark).
    init(baseURL: String, connections: Int, timeout: TimeAmount = .seconds(30), loop: any EventLoop) throws {
        guard let url = Self.parse(baseURL) else { throw BenchError("the gateway URL must look like http://host:port") }
        self.loop = loop
        (host, port) = url
        hostHeader = port == 80 ? host : "\(host):\(port)"
        let pool = NIOLoopBound(ConnectionPool(limit: max(1, connections)), eventLoop: loop)
        self.pool = pool
        let sweep = loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            pool.value.failOverdue(olderThan: .now() - timeout)
        }
        self.sweep = NIOLoopBound(sweep, eventLoop: loop)
    }

    static func parse(_ url: String) -> (String, Int)? {
        guard url.hasPrefix("http://") else { return nil }
        let authority = url.dropFirst("http://".count).split(separator: "/", maxSplits: 1).first ?? ""
        let parts = authority.split(separator: ":")
        guard let host = parts.first, !host.isEmpty else { return nil }
        guard parts.count == 2 else { return parts.count == 1 ? (String(host), 80) : nil }
        guard let port = Int(parts[1]) else { return nil }
        return (String(host), port)
    }

    /// A request with the headers every call of the apps carries. The path and header values come from the scenario
    /// and the workload; a byte that could end a line or the request line is refused rather than sent.
    func request(
        _ method: HTTPMethod, _ path: String, headers: [(String, String)], json: ByteBuffer? = nil
    ) throws -> LoadRequest {
        guard !path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw BenchError("a request path with a space or a control character: \(path)")
        }
        var head = "\(method.rawValue) \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\n"
        for (name, value) in headers {
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
                throw BenchError("a line break in the value of \(name)")
            }
            head += "\(name): \(value)\r\n"
        }
        if let json {
            head += "Content-Type: application/json\r\nContent-Length: \(json.readableBytes)\r\n"
        }
        head += "\r\n"
        var bytes = ByteBuffer(string: head)
        if var json { bytes.writeBuffer(&json) }
        return LoadRequest(bytes: bytes)
    }

    /// Sends the request on a free connection (opening one, or queueing until one is free) and calls `completion` on
    /// the client's loop once the whole reply has been read. Fails with the connection's error, or about `timeout`
    /// (at most a second more) after this call, whether it waited for a connection or for its reply.
    func send(_ request: LoadRequest, completion: @escaping @Sendable (Result<LoadReply, any Error>) -> Void) {
        let promise = loop.makePromise(of: LoadReply.self)
        promise.futureResult.whenComplete(completion)
        if loop.inEventLoop {
            pool.value.enqueue(Exchange(request: request, promise: promise, queuedAt: .now()), client: self)
        } else {
            loop.execute { [self] in
                pool.value.enqueue(Exchange(request: request, promise: promise, queuedAt: .now()), client: self)
            }
        }
    }

    func shutdown() async {
        let channels = try? await loop.submit { [self] in
            sweep.value.cancel()
            return pool.value.closeAll()
        }.get()
        for channel in channels ?? [] { try? await channel.close() }
    }

    fileprivate func connect() -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: loop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ReplyHandler())
                }
            }
            .connect(host: host, port: port)
    }

    fileprivate func released(_ channel: any Channel, reusable: Bool) {
        pool.value.released(channel, reusable: reusable, client: self)
    }
}

/// A request and the promise its reply completes.
private struct Exchange: Sendable {
    let request: LoadRequest
    let promise: EventLoopPromise<LoadReply>
    let queuedAt: NIODeadline
}

/// Idle connections and waiting requests. Used on the client's loop only.
private final class ConnectionPool {
    let limit: Int
    var open = 0
    var idle: [any Channel] = []
    /// In the order they were queued, so the overdue ones are at the front.
    var waiting = CircularBuffer<Exchange>()
    /// Every open connection's reply handler (busy or idle), by connection.
    var handlers: [ObjectIdentifier: (channel: any Channel, handler: ReplyHandler)] = [:]

    init(limit: Int) { self.limit = limit }

    func enqueue(_ exchange: Exchange, client: LoadClient) {
        if let channel = idle.popLast() {
            send(exchange, on: channel, client: client)
        } else if open < limit {
            open += 1
            client.connect().assumeIsolated().whenComplete { result in
                switch result {
                case .success(let channel):
                    if let handler = try? channel.pipeline.syncOperations.handler(type: ReplyHandler.self) {
                        self.handlers[ObjectIdentifier(channel)] = (channel, handler)
                    }
                    self.send(exchange, on: channel, client: client)
                case .failure(let error):
                    self.open -= 1
                    exchange.promise.fail(error)
                    // A queued request tries a connection of its own rather than wait for one that may never free.
                    if let next = self.waiting.popFirst() { self.enqueue(next, client: client) }
                }
            }
        } else {
            waiting.append(exchange)
        }
    }

    func send(_ exchange: Exchange, on channel: any Channel, client: LoadClient) {
        let handler = try? channel.pipeline.syncOperations.handler(type: ReplyHandler.self)
        guard let handler, channel.isActive else {
            released(channel, reusable: false, client: client)
            enqueue(exchange, client: client)
            return
        }
        // The timeout runs from `send`, whether the request then waited for a connection or not.
        handler.start(exchange.promise, at: exchange.queuedAt) { reusable in
            client.released(channel, reusable: reusable)
        }
        channel.writeAndFlush(exchange.request.bytes, promise: nil)
    }

    func released(_ channel: any Channel, reusable: Bool, client: LoadClient) {
        guard reusable, channel.isActive else {
            open -= 1
            handlers[ObjectIdentifier(channel)] = nil
            channel.close(promise: nil)
            if let next = waiting.popFirst() { enqueue(next, client: client) }
            return
        }
        if let next = waiting.popFirst() {
            send(next, on: channel, client: client)
        } else {
            idle.append(channel)
        }
    }

    func closeAll() -> [any Channel] {
        defer { idle = [] }
        return idle
    }

    /// Fails the requests queued or sent before `limit` (the sweep's): the queued ones at once, a sent one through
    /// its connection's handler, which gives the connection back as not reusable (closed, so a late reply cannot be
    /// taken for the next request's).
    func failOverdue(olderThan limit: NIODeadline) {
        while let first = waiting.first, first.queuedAt < limit {
            waiting.removeFirst()
            first.promise.fail(BenchError("no connection within the timeout"))
        }
        for (_, entry) in handlers {
            entry.handler.failIfStarted(before: limit)
        }
    }
}

/// Reads one reply per request (`ReplyParser`). A connection the server closes (or that fails) fails the request on
/// it and is not reused; so is one that sends bytes while no request waits.
private final class ReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var promise: EventLoopPromise<LoadReply>?
    private var done: ((Bool) -> Void)?
    private var startedAt = NIODeadline.distantFuture
    private var parser = ReplyParser()

    func start(_ promise: EventLoopPromise<LoadReply>, at start: NIODeadline, done: @escaping (Bool) -> Void) {
        self.promise = promise
        self.done = done
        startedAt = start
        parser.reset()
    }

    /// The sweep's: fails the request in flight if it was made before `limit`.
    func failIfStarted(before limit: NIODeadline) {
        guard promise != nil, startedAt < limit else { return }
        finish(.failure(BenchError("no reply within the timeout")), reusable: false)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        guard promise != nil else {
            context.close(promise: nil)  // a reply to nothing: this connection's replies can no longer be matched
            return
        }
        do {
            if let (reply, reusable) = try parser.parse(&bytes) { finish(.success(reply), reusable: reusable) }
        } catch {
            finish(.failure(error), reusable: false)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let reply = parser.endOfStream() {
            finish(.success(reply), reusable: false)
        } else {
            finish(.failure(BenchError("the gateway closed the connection")), reusable: false)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error), reusable: false)
        context.close(promise: nil)
    }

    private func finish(_ result: Result<LoadReply, any Error>, reusable: Bool) {
        guard let promise, let done else { return }
        self.promise = nil
        self.done = nil
        startedAt = .distantFuture
        promise.completeWith(result)
        done(reusable)
    }
}
