import Foundation

/// One Engine.IO client connection (its `sid`), over HTTP long-polling or, once upgraded, a WebSocket.
///
/// Outgoing packets queue here until the client's next poll takes them (a poll waits until there is something
/// to take or its time is up), or go straight to the WebSocket once the client has upgraded.
actor EngineSession {
    let id: String
    /// What the client sent when it opened the connection (the apps that send headers send them there).
    let handshake: Handshake
    private var queue: [EnginePacket] = []
    private typealias WaitingPoll = (
        token: UInt64, continuation: CheckedContinuation<[EnginePacket], Never>, timer: Task<Void, Never>
    )
    private var waitingPoll: WaitingPoll?
    private var pollTokens: UInt64 = 0
    private var webSocket: AsyncStream<String>.Continuation?
    /// Joined namespaces and their Socket.IO socket ids.
    private(set) var namespaces: [String: String] = [:]
    private(set) var isClosed = false
    /// When the last server ping was sent and not yet answered.
    private var pingSentAt: ContinuousClock.Instant?

    struct Handshake: Sendable {
        var authorization: String?
        var sesacKey: String?
        /// A G2 app's `ProductId` (decision 0021): its sockets get G2's paths.
        var productId: String? = nil
    }

    enum PollError: Error { case alreadyPolling, closed }

    init(id: String, handshake: Handshake) {
        self.id = id
        self.handshake = handshake
    }

    var isUpgraded: Bool { webSocket != nil }

    func send(_ packet: EnginePacket) {
        guard !isClosed else { return }
        if let webSocket {
            webSocket.yield(packet.encoded)
            return
        }
        queue.append(packet)
        if waitingPoll != nil {
            let packets = queue
            queue = []
            answerPoll(packets)
        }
    }

    /// The queued packets, waiting up to `timeout` for the first. A second poll while one waits is a protocol
    /// error (the client is closed, as Engine.IO specifies).
    func poll(timeout: Duration) async throws -> [EnginePacket] {
        guard !isClosed else { throw PollError.closed }
        guard waitingPoll == nil else {
            close()
            throw PollError.alreadyPolling
        }
        if !queue.isEmpty {
            defer { queue = [] }
            return queue
        }
        pollTokens += 1
        let token = pollTokens
        return await withCheckedContinuation { continuation in
            let timer = Task { [weak self] in
                guard (try? await Task.sleep(for: timeout)) != nil else { return }  // cancelled: the poll was answered
                await self?.endPoll(token: token)
            }
            waitingPoll = (token, continuation, timer)
        }
    }

    private func endPoll(token: UInt64) {
        guard let waiting = waitingPoll, waiting.token == token else { return }
        answerPoll([])
    }

    /// Ends the waiting poll (if any) with `packets`, and its timer with it.
    private func answerPoll(_ packets: [EnginePacket]) {
        guard let waiting = waitingPoll else { return }
        waitingPoll = nil
        waiting.timer.cancel()
        waiting.continuation.resume(returning: packets)
    }

    /// Moves the connection to a WebSocket: what is queued goes there, a waiting poll ends with a noop.
    func upgrade(to stream: AsyncStream<String>.Continuation) {
        webSocket = stream
        for packet in queue { stream.yield(packet.encoded) }
        queue = []
        answerPoll([.noop])
    }

    func join(_ namespace: String, socketId: String) { namespaces[namespace] = socketId }
    func leave(_ namespace: String) { namespaces[namespace] = nil }

    /// Heartbeat: a ping sent `timeout` ago and still unanswered means the client is gone.
    func heartbeat(now: ContinuousClock.Instant, timeout: Duration) -> Bool {
        if let sent = pingSentAt {
            return now - sent <= timeout
        }
        pingSentAt = now
        send(.ping(""))
        return true
    }

    func pongReceived() { pingSentAt = nil }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        answerPoll([.close])
        webSocket?.finish()
        webSocket = nil
    }
}
