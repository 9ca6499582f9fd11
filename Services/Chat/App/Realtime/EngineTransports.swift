import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import SNSPlatform

/// Engine.IO's two transports on `/socket.io/` (protocol 4): HTTP long-polling (`GET` takes what is queued, waiting
/// up to the ping interval; `POST` delivers the client's packets) and WebSocket, either from the start or as an
/// upgrade of a polling session (`2probe` → `3probe`, then `5`; the waiting poll ends with a noop).
struct EngineTransports: Sendable {
    static let path = "/socket.io/"

    let hub: RealtimeHub

    /// Engine.IO's own errors: HTTP 400 with `{"code", "message"}`.
    static func refusal(_ code: Int, _ message: String) -> Response {
        Response(
            status: .badRequest, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"code":\#(code),"message":"\#(message)"}"#)))
    }

    static func text(_ body: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/plain; charset=UTF-8"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func handshake(_ headers: HTTPFields) -> EngineSession.Handshake {
        EngineSession.Handshake(
            authorization: headers[.authorization], sesacKey: headers[HTTPField.Name("SesacKey")!],
            productId: headers[.productId]?.trimmingWhitespace())
    }

    /// `GET /socket.io/?EIO=4&transport=polling[&sid=…]`
    func poll(_ request: Request, context: APIRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard query["EIO"] == "4" else { return Self.refusal(5, "Unsupported protocol version") }
        guard query["transport"] == "polling" else { return Self.refusal(0, "Transport unknown") }
        guard let sid = query["sid"].map(String.init) else {
            let (_, open) = await hub.open(handshake: Self.handshake(request.headers), upgrades: ["websocket"])
            return Self.text(open.encoded)
        }
        guard let session = await hub.session(sid) else { return Self.refusal(1, "Session ID unknown") }
        do {
            let packets = try await session.poll(timeout: hub.settings.pingInterval)
            return Self.text(EnginePacket.encodePayload(packets.isEmpty ? [.noop] : packets))
        } catch {
            await hub.drop(session)
            return Self.refusal(3, "Bad request")
        }
    }

    /// `POST /socket.io/?EIO=4&transport=polling&sid=…` with packets separated by 0x1E → `ok`.
    func deliver(_ request: Request, context: APIRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard query["EIO"] == "4" else { return Self.refusal(5, "Unsupported protocol version") }
        guard let sid = query["sid"].map(String.init), let session = await hub.session(sid) else {
            return Self.refusal(1, "Session ID unknown")
        }
        let body = try await request.body.collect(upTo: hub.settings.maxPayload)
        await hub.receive(EnginePacket.decodePayload(String(buffer: body)), from: session)
        return Self.text("ok")
    }

    /// Whether an HTTP request is an Engine.IO WebSocket connection, and what serves it.
    func webSocket(_ request: HTTPRequest) async -> ShouldUpgradeResult<
        WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
    > {
        guard let target = request.path, target.hasPrefix(Self.path) else { return .dontUpgrade }
        let query = Self.query(target)
        guard query["EIO"] == "4", query["transport"] == "websocket" else { return .dontUpgrade }
        let hub = self.hub
        if let sid = query["sid"] {
            guard let session = await hub.session(sid), !(await session.isUpgraded) else { return .dontUpgrade }
            return .upgrade([:]) { inbound, outbound, _ in
                try await Self.serve(session: session, probing: true, hub: hub, inbound: inbound, outbound: outbound)
            }
        }
        let handshake = Self.handshake(request.headerFields)
        return .upgrade([:]) { inbound, outbound, _ in
            let (session, open) = await hub.open(handshake: handshake, upgrades: [])
            try await outbound.write(.text(open.encoded))
            try await Self.serve(session: session, probing: false, hub: hub, inbound: inbound, outbound: outbound)
        }
    }

    /// Runs one WebSocket: frames out from the session's stream, frames in to the hub, until either side ends.
    static func serve(
        session: EngineSession, probing: Bool, hub: RealtimeHub, inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter
    ) async throws {
        let (frames, continuation) = AsyncStream<String>.makeStream()
        if !probing { await session.upgrade(to: continuation) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await frame in frames { try await outbound.write(.text(frame)) }
            }
            group.addTask {
                var upgraded = !probing
                for try await message in inbound.messages(maxSize: hub.settings.maxPayload) {
                    guard case .text(let text) = message, let packet = EnginePacket(Substring(text)) else { continue }
                    if !upgraded {
                        switch packet {
                        case .ping("probe"): try await outbound.write(.text(EnginePacket.pong("probe").encoded))
                        case .upgrade:
                            upgraded = true
                            await session.upgrade(to: continuation)
                        default: continue
                        }
                        continue
                    }
                    await hub.receive([packet], from: session)
                }
                continuation.finish()
            }
            try await group.next()
            group.cancelAll()
        }
        if await session.isUpgraded || !probing { await hub.drop(session) }
    }

    static func query(_ target: String) -> [String: String] {
        guard let mark = target.firstIndex(of: "?") else { return [:] }
        var values: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            values[key] = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
        }
        return values
    }
}
