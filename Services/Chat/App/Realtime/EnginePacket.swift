/// One Engine.IO (protocol 4) packet: a type digit and a text payload. Over HTTP long-polling several packets travel
/// in one body separated by the record separator (0x1E); over WebSocket each is one text frame.
enum EnginePacket: Equatable, Sendable {
    case open(String)
    case close
    case ping(String)
    case pong(String)
    case message(String)
    case upgrade
    case noop

    static let separator: Character = "\u{1E}"

    var encoded: String {
        switch self {
        case .open(let json): "0" + json
        case .close: "1"
        case .ping(let data): "2" + data
        case .pong(let data): "3" + data
        case .message(let data): "4" + data
        case .upgrade: "5"
        case .noop: "6"
        }
    }

    /// nil for an unknown type or a binary (base64, `b…`) packet, which this server never needs to read.
    init?(_ text: Substring) {
        guard let first = text.first else { return nil }
        let rest = String(text.dropFirst())
        switch first {
        case "0": self = .open(rest)
        case "1": self = .close
        case "2": self = .ping(rest)
        case "3": self = .pong(rest)
        case "4": self = .message(rest)
        case "5": self = .upgrade
        case "6": self = .noop
        default: return nil
        }
    }

    /// The packets of a long-polling body (unknown ones dropped).
    static func decodePayload(_ body: String) -> [EnginePacket] {
        body.split(separator: separator, omittingEmptySubsequences: true).compactMap(EnginePacket.init)
    }

    static func encodePayload(_ packets: [EnginePacket]) -> String {
        packets.map(\.encoded).joined(separator: String(separator))
    }
}

/// One Socket.IO (protocol 5, Socket.IO 3 and 4) packet, carried in an Engine.IO message:
/// `<type>[<attachments>-][<namespace>,][<ack id>][<JSON>]`. The namespace is omitted for `/`.
struct SocketPacket: Equatable, Sendable {
    enum Kind: Int, Sendable {
        case connect = 0
        case disconnect = 1
        case event = 2
        case ack = 3
        case connectError = 4
        case binaryEvent = 5
        case binaryAck = 6
    }

    var kind: Kind
    var namespace: String = "/"
    var ackId: Int? = nil
    /// The JSON that follows, as text (an object for CONNECT and CONNECT_ERROR, an array for EVENT and ACK).
    var json: String? = nil
    var attachments: Int = 0

    var encoded: String {
        var text = String(kind.rawValue)
        if kind == .binaryEvent || kind == .binaryAck { text += "\(attachments)-" }
        if namespace != "/" { text += namespace + "," }
        if let ackId { text += String(ackId) }
        if let json { text += json }
        return text
    }

    /// nil when the text is not a Socket.IO packet.
    init?(_ text: String) {
        var rest = Substring(text)
        guard let digit = rest.first?.wholeNumberValue, let kind = Kind(rawValue: digit) else { return nil }
        rest = rest.dropFirst()
        self.kind = kind
        if kind == .binaryEvent || kind == .binaryAck {
            guard let dash = rest.firstIndex(of: "-"), let count = Int(rest[..<dash]) else { return nil }
            attachments = count
            rest = rest[rest.index(after: dash)...]
        }
        if rest.first == "/" {
            let end = rest.firstIndex(of: ",") ?? rest.endIndex
            namespace = String(rest[..<end])
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
        }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty {
            ackId = Int(digits)
            rest = rest.dropFirst(digits.count)
        }
        json = rest.isEmpty ? nil : String(rest)
    }

    init(kind: Kind, namespace: String = "/", ackId: Int? = nil, json: String? = nil) {
        self.kind = kind
        self.namespace = namespace
        self.ackId = ackId
        self.json = json
    }
}
