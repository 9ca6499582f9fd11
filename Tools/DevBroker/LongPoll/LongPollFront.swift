import NIOCore
import NIOPosix
import Synchronization

/// A front for the mock broker that answers fetches the way a real Kafka broker does (decision 0049): a consumer at
/// the end of its partitions waits in the broker until something is produced to one of its topics or its
/// `fetch.wait.max.ms` has passed, instead of being answered "nothing" after that wait whatever arrived meanwhile
/// (the mock's behaviour). Clients connect here; every connection is relayed to the mock, frame by frame, in order.
///
/// A fetch is held here when it asks for exactly the partitions and offsets the connection's previous fetch asked
/// for, that fetch got nothing, and nothing has been produced to its topics since it was sent. Every fetch is
/// passed on with `max_wait_ms` 0, so the mock answers at once; requests behind a held fetch wait behind it, as a
/// real broker's connection does. Produce acknowledgements release the held fetches of their topics. Metadata and
/// FindCoordinator answers are given this front's port, so clients keep talking through it.
///
/// Everything runs on one event loop; the handlers and the hub are confined to it. `LongPollFront` itself is used
/// from the broker's main thread only.
final class LongPollFront {
    private let group: MultiThreadedEventLoopGroup
    private let host: String
    private let bootstrap: ServerBootstrap
    private var channel: (any Channel)?
    /// The port it listens on: chosen by the system at the start, and bound again after an outage.
    let port: Int

    private init(group: MultiThreadedEventLoopGroup, host: String, bootstrap: ServerBootstrap, channel: any Channel) {
        self.group = group
        self.host = host
        self.bootstrap = bootstrap
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    /// Listens on `host`, an ephemeral port, for clients of the mock broker at `upstream`.
    static func start(host: String, upstream: SocketAddress) throws -> LongPollFront {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let hub = try loop.submit { NIOLoopBound(LongPollHub(), eventLoop: loop) }.wait()
        let frontPort = FrontPort()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = FrontConnection(
                        hub: hub.value, upstream: upstream, frontPort: frontPort.value.load(ordering: .acquiring))
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(KafkaFrameDecoder()), connection)
                }
            }
        let channel = try bootstrap.bind(host: host, port: 0).wait()
        frontPort.value.store(Int32(channel.localAddress?.port ?? 0), ordering: .releasing)
        return LongPollFront(group: group, host: host, bootstrap: bootstrap, channel: channel)
    }

    /// A simulated outage (SIGUSR1): the front stops listening, so new connections are refused as the mock's are; the
    /// connections it relays close with the mock's. `true` listens again, on the same port.
    func setAccepting(_ accepting: Bool) throws {
        if accepting {
            guard channel == nil else { return }
            channel = try bootstrap.bind(host: host, port: port).wait()
        } else {
            try channel?.close().wait()
            channel = nil
        }
    }

    func stop() {
        try? channel?.close().wait()
        channel = nil
        try? group.syncShutdownGracefully()
    }
}

/// The front's port, known once it listens, read by the connections it accepts after that.
private final class FrontPort: Sendable {
    let value = Atomic<Int32>(0)
}

/// Splits a stream into Kafka frames (a 4-byte big-endian size, then that many bytes); emits the frames without
/// their size.
struct KafkaFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    /// Far above any frame the system sends (librdkafka's `message.max.bytes` is 1 MB); a larger size means the
    /// stream is not Kafka.
    static let maximumFrame = 100 << 20

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let size = buffer.getInteger(at: buffer.readerIndex, as: Int32.self) else { return .needMoreData }
        guard size >= 0, Int(size) <= Self.maximumFrame else { throw KafkaFrameTooLarge(size: size) }
        guard buffer.readableBytes >= 4 + Int(size) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        context.fireChannelRead(Self.wrapInboundOut(buffer.readSlice(length: Int(size))!))
        return .continue
    }
}

struct KafkaFrameTooLarge: Error {
    var size: Int32
}

extension Channel {
    /// Writes a frame with its size in front.
    func writeKafkaFrame(_ frame: ByteBuffer) {
        var out = allocator.buffer(capacity: 4 + frame.readableBytes)
        out.writeInteger(Int32(frame.readableBytes))
        out.writeImmutableBuffer(frame)
        writeAndFlush(out, promise: nil)
    }
}
