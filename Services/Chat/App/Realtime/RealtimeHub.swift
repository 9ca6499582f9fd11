import Foundation
import Logging
import SNSPlatform

/// The Socket.IO server's state in one chat replica: its Engine.IO sessions, which of them joined which room's
/// namespace (`/chats-{room_id}`), and what a packet from a client does. Messages reach it from `ChatFanOut` (every
/// message of every replica, through `sns.chats`) and go to the sessions in the room: `["chat", <message>]`.
/// Events the clients emit are read and dropped, never re-broadcast.
actor RealtimeHub {
    struct Settings: Sendable {
        var pingInterval: Duration = .seconds(25)
        var pingTimeout: Duration = .seconds(20)
        var maxPayload = 1_000_000
    }

    let settings: Settings
    let authorizer: SocketAuthorizer
    let logger: Logger
    private var sessions: [String: EngineSession] = [:]
    /// room id → the sessions that joined its namespace.
    private var rooms: [String: Set<String>] = [:]

    init(settings: Settings, authorizer: SocketAuthorizer, logger: Logger) {
        self.settings = settings
        self.authorizer = authorizer
        self.logger = logger
    }

    static func namespace(ofRoom roomId: String) -> String { "/chats-\(roomId)" }

    var sessionCount: Int { sessions.count }

    /// A new Engine.IO session and its open packet.
    func open(handshake: EngineSession.Handshake, upgrades: [String]) -> (EngineSession, EnginePacket) {
        let session = EngineSession(id: Self.randomId(), handshake: handshake)
        sessions[session.id] = session
        let open =
            #"{"sid":"\#(session.id)","upgrades":[\#(upgrades.map { "\"\($0)\"" }.joined(separator: ","))],"#
            + #""pingInterval":\#(Self.milliseconds(settings.pingInterval)),"#
            + #""pingTimeout":\#(Self.milliseconds(settings.pingTimeout)),"maxPayload":\#(settings.maxPayload)}"#
        return (session, .open(open))
    }

    func session(_ id: String) -> EngineSession? { sessions[id] }

    /// Applies what a client sent.
    func receive(_ packets: [EnginePacket], from session: EngineSession) async {
        for packet in packets {
            switch packet {
            case .ping(let data): await session.send(.pong(data))  // the WebSocket probe ("2probe")
            case .pong: await session.pongReceived()
            case .close: await drop(session)
            case .message(let text): await receive(SocketPacket(text), from: session)
            case .open, .upgrade, .noop: continue
            }
        }
    }

    private func receive(_ packet: SocketPacket?, from session: EngineSession) async {
        guard let packet else { return }
        switch packet.kind {
        case .connect:
            switch await authorizer.authorize(namespace: packet.namespace, handshake: session.handshake) {
            case .success(let roomId):
                let socketId = Self.randomId()
                await session.join(packet.namespace, socketId: socketId)
                if let roomId { rooms[roomId, default: []].insert(session.id) }
                await session.send(
                    .message(
                        SocketPacket(kind: .connect, namespace: packet.namespace, json: #"{"sid":"\#(socketId)"}"#)
                            .encoded))
            case .failure(let refusal):
                let message = APIError.jsonString(refusal.message)
                await session.send(
                    .message(
                        SocketPacket(
                            kind: .connectError, namespace: packet.namespace, json: #"{"message":\#(message)}"#
                        )
                        .encoded))
            }
        case .disconnect:
            await session.leave(packet.namespace)
            if let roomId = SocketAuthorizer.roomId(of: packet.namespace) { rooms[roomId]?.remove(session.id) }
        case .event, .binaryEvent, .ack, .binaryAck, .connectError:
            return  // client emits are not re-broadcast (a message is sent over REST)
        }
    }

    /// Pushes one message (the Chat JSON) to every session of this replica in its room; G2 sessions (their handshake
    /// named an app) get `g2JSON`, the same message with G2's paths.
    func deliver(roomId: String, chatJSON: String, g2JSON: String) async {
        guard let members = rooms[roomId], !members.isEmpty else { return }
        let namespace = Self.namespace(ofRoom: roomId)
        func packet(_ json: String) -> EnginePacket {
            EnginePacket.message(SocketPacket(kind: .event, namespace: namespace, json: #"["chat",\#(json)]"#).encoded)
        }
        let (g1Packet, g2Packet) = (packet(chatJSON), packet(g2JSON))
        for id in members {
            guard let session = sessions[id] else { continue }
            if await session.namespaces[namespace] != nil {
                await session.send(session.handshake.productId == nil ? g1Packet : g2Packet)
            }
        }
    }

    /// One heartbeat round: pings every session, drops those that left the last ping unanswered.
    func heartbeat() async {
        let now = ContinuousClock.now
        for session in sessions.values where !(await session.heartbeat(now: now, timeout: settings.pingTimeout)) {
            await drop(session)
        }
    }

    func drop(_ session: EngineSession) async {
        await session.close()
        sessions[session.id] = nil
        for roomId in rooms.keys { rooms[roomId]?.remove(session.id) }
        rooms = rooms.filter { !$0.value.isEmpty }
    }

    func closeAll() async {
        for session in sessions.values { await drop(session) }
    }

    static func randomId() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<15).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
