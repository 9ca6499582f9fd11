import NIOCore
import NIOPosix

/// The front's produce log and the connections whose fetch it holds; confined to the front's event loop.
final class LongPollHub {
    private(set) var log = ProduceLog()
    private var waiting: [ObjectIdentifier: FrontConnection] = [:]

    /// A produce request was acknowledged: the fetches held for its topics go on.
    func produced(_ topics: Set<String>?) {
        log.record(topics)
        let released = waiting.values.filter { connection in
            guard let topics else { return true }
            return !connection.heldTopics.isDisjoint(with: topics)
        }
        for connection in released { connection.release() }
    }

    func wait(_ connection: FrontConnection) { waiting[ObjectIdentifier(connection)] = connection }
    func stopWaiting(_ connection: FrontConnection) { waiting[ObjectIdentifier(connection)] = nil }
}

/// One client's connection through the front, relayed in order to its own connection to the mock.
final class FrontConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let hub: LongPollHub
    private let upstreamAddress: SocketAddress
    private let frontPort: Int32
    private var client: (any Channel)?
    private var upstream: (any Channel)?
    /// Requests not yet passed on: before the mock's connection is up, and behind a held fetch.
    private var queue = CircularBuffer<ByteBuffer>()
    private var held: (frame: ByteBuffer, request: KafkaWire.FetchRequest, timer: Scheduled<Void>)?
    /// Requests passed on whose answers the front reads, by correlation id.
    private var inflight: [Int32: (apiKey: Int16, version: Int16, topics: Set<String>?)] = [:]
    private var state = LongPollState()

    init(hub: LongPollHub, upstream: SocketAddress, frontPort: Int32) {
        self.hub = hub
        self.upstreamAddress = upstream
        self.frontPort = frontPort
    }

    /// The topics of the fetch held, if any.
    var heldTopics: Set<String> { held?.request.topics ?? [] }

    func channelActive(context: ChannelHandlerContext) {
        client = context.channel
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(KafkaFrameDecoder()), UpstreamRelay(connection: this))
                }
            }
            .connect(to: upstreamAddress)
            .whenComplete { result in
                switch result {
                case .success(let channel): this.value.upstreamConnected(channel)
                case .failure: this.value.client?.close(promise: nil)  // the mock is down: so is the front for it
                }
            }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        queue.append(unwrapInboundIn(data))
        pump()
    }

    func channelInactive(context: ChannelHandlerContext) {
        held?.timer.cancel()
        held = nil
        hub.stopWaiting(self)
        upstream?.close(promise: nil)
        upstream = nil
        client = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func upstreamConnected(_ channel: any Channel) {
        guard client != nil else {
            channel.close(promise: nil)
            return
        }
        upstream = channel
        pump()
    }

    /// Passes on queued requests in order until one is held.
    private func pump() {
        while upstream != nil, held == nil, let frame = queue.popFirst() { pass(frame) }
    }

    private func pass(_ frame: ByteBuffer) {
        guard let upstream else { return }
        guard let header = KafkaWire.requestHeader(frame) else { return upstream.writeKafkaFrame(frame) }
        switch header.apiKey {
        case KafkaWire.fetch:
            if let request = KafkaWire.fetchRequest(frame, header: header), request.minBytes <= 1,
                request.maxWaitMilliseconds > 0
            {
                if state.shouldHold(request, log: hub.log) { return hold(frame, request) }
                return passFetch(frame, request, header: header)
            }
        case KafkaWire.produce:
            inflight[header.correlationId] = (
                header.apiKey, header.apiVersion, KafkaWire.producedTopics(frame, header: header)
            )
        case KafkaWire.metadata, KafkaWire.findCoordinator:
            inflight[header.correlationId] = (header.apiKey, header.apiVersion, nil)
        default:
            break
        }
        upstream.writeKafkaFrame(frame)
    }

    /// Passes a fetch on with `max_wait_ms` 0: the front has done the waiting.
    private func passFetch(_ frame: ByteBuffer, _ request: KafkaWire.FetchRequest, header: KafkaWire.RequestHeader) {
        var frame = frame
        frame.setInteger(Int32(0), at: frame.readerIndex + request.maxWaitOffset)
        state.sent(request, at: hub.log.sequence)
        inflight[header.correlationId] = (header.apiKey, header.apiVersion, nil)
        upstream?.writeKafkaFrame(frame)
    }

    private func hold(_ frame: ByteBuffer, _ request: KafkaWire.FetchRequest) {
        guard let loop = client?.eventLoop else { return }
        let this = NIOLoopBound(self, eventLoop: loop)
        let timer = loop.scheduleTask(in: .milliseconds(Int64(request.maxWaitMilliseconds))) { this.value.release() }
        held = (frame, request, timer)
        hub.wait(self)
    }

    /// Something was produced to the held fetch's topics, or its wait is over: it goes on, then what queued behind it.
    func release() {
        guard let held, let header = KafkaWire.requestHeader(held.frame) else { return }
        held.timer.cancel()
        self.held = nil
        hub.stopWaiting(self)
        passFetch(held.frame, held.request, header: header)
        pump()
    }

    /// An answer from the mock, on its way to the client.
    fileprivate func answered(_ frame: ByteBuffer) {
        var frame = frame
        if let correlation = frame.getInteger(at: frame.readerIndex, as: Int32.self),
            let request = inflight.removeValue(forKey: correlation)
        {
            switch request.apiKey {
            case KafkaWire.fetch:
                state.answered(gaveAnything: KafkaWire.fetchResponseGivesAnything(frame, version: request.version))
            case KafkaWire.produce:
                client?.writeKafkaFrame(frame)
                hub.produced(request.topics)
                return
            default:
                _ = KafkaWire.rewritePorts(&frame, apiKey: request.apiKey, version: request.version, port: frontPort)
            }
        }
        client?.writeKafkaFrame(frame)
    }

    fileprivate func upstreamClosed() {
        upstream = nil
        client?.close(promise: nil)
    }
}

/// The mock's side of a front connection: answers go back to the client through the `FrontConnection`.
private final class UpstreamRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let connection: NIOLoopBound<FrontConnection>

    init(connection: NIOLoopBound<FrontConnection>) { self.connection = connection }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection.value.answered(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.value.upstreamClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
