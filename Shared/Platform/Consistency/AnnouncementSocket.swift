import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// A process's UDP socket for read-your-writes announcements sent straight to the waiting writer (decision 0050).
///
/// A writer whose barrier has this socket names its address in each awaited event (`sns-awaited-at`); a consumer
/// that applied such an event sends `"<group> <event id>"` to that address after its transaction committed, instead
/// of a `NOTIFY` (which PostgreSQL delivers by waking every listening backend of the database). The same socket
/// sends the process's own consumers' announcements. A datagram that is lost only makes its writer answer at the
/// read-your-writes bound, as a late projection does; nothing else depends on it.
package final class AnnouncementSocket: Service, Sendable {
    /// Where other processes send this process's announcements: `ip:port`.
    package let address: String
    let channel: any Channel
    private let receiver: AnnouncementReceiver

    /// Binds a socket on `host` (an IP address; `auto` binds every interface and names the address the host's
    /// name resolves to, as in a container) on a free port.
    package static func bind(
        host: String, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger
    ) async throws -> AnnouncementSocket {
        let (bindHost, advertised) = try host == "auto" ? ("0.0.0.0", Self.ownAddress()) : (host, host)
        let receiver = AnnouncementReceiver()
        let channel = try await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(receiver) }
            }
            .bind(host: bindHost, port: 0).get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw AnnouncementSocketError.noLocalPort
        }
        let address = advertised.contains(":") ? "[\(advertised)]:\(port)" : "\(advertised):\(port)"
        var logger = logger
        logger[metadataKey: "component"] = "announcements"
        logger.info("announcements arrive by datagram", metadata: ["address": "\(address)"])
        return AnnouncementSocket(address: address, channel: channel, receiver: receiver)
    }

    private init(address: String, channel: any Channel, receiver: AnnouncementReceiver) {
        self.address = address
        self.channel = channel
        self.receiver = receiver
    }

    /// What the host's name resolves to (Docker and Kubernetes map a container's name to its address).
    static func ownAddress() throws -> String {
        let name = ProcessInfo.processInfo.hostName
        guard let resolved = try? SocketAddress.makeAddressResolvingHost(name, port: 0), let ip = resolved.ipAddress
        else { throw AnnouncementSocketError.unresolvableHost(name) }
        return ip
    }

    /// Called with each announcement received (the barrier's `applied`).
    func onAnnouncement(_ deliver: @escaping @Sendable (String, UUID) -> Void) {
        receiver.subscriber.withLock { $0 = Subscriber(deliver: deliver) }
    }

    /// Sends announcements; a failure is never reported (the writer's bound covers a lost one).
    package func send(_ announcements: [(to: SocketAddress, payload: String)]) {
        guard !announcements.isEmpty else { return }
        for (to, payload) in announcements {
            let envelope = AddressedEnvelope(remoteAddress: to, data: ByteBuffer(string: payload))
            channel.write(envelope, promise: nil)
        }
        channel.flush()
    }

    /// `ip:port` (or `[ipv6]:port`) as the `sns-awaited-at` header carries it.
    package static func parse(_ address: String) -> SocketAddress? {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        var host = address[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return try? SocketAddress(ipAddress: String(host), port: port)
    }

    /// Open until the service shuts down (after the consumers, which send on it, have stopped).
    package func run() async throws {
        try? await gracefulShutdown()
        try? await channel.close()
    }
}

/// Whoever is told of the announcements received.
private struct Subscriber: Sendable {
    let deliver: @Sendable (String, UUID) -> Void
}

enum AnnouncementSocketError: Error, CustomStringConvertible {
    case noLocalPort
    case unresolvableHost(String)

    var description: String {
        switch self {
        case .noLocalPort: "the announcement socket has no local port"
        case .unresolvableHost(let name): "SNS_ANNOUNCE_HOST=auto: host name \(name) does not resolve to an address"
        }
    }
}

/// Reads announcements off the socket and hands them to whoever subscribed (the barrier); anything that does not
/// parse is dropped. Errors (an ICMP "port unreachable" from a writer that went away) leave the socket open.
/// Sendable: its only state is behind a `Mutex`.
private final class AnnouncementReceiver: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    /// In a struct: a bare closure in a `Mutex` is re-abstracted on every `withLock` and written back wrapped in
    /// one more thunk, so each announcement made the next one slower (found in a profile of posts: a chain of
    /// thunks taking 12 % of its CPU after a few thousand announcements).
    let subscriber = Mutex<Subscriber?>(nil)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var envelope = unwrapInboundIn(data)
        guard let payload = envelope.data.readString(length: envelope.data.readableBytes),
            let (group, eventId) = ReadYourWrites.parse(payload)
        else { return }
        subscriber.withLock { $0 }?.deliver(group, eventId)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}
