import Foundation
import Logging
import SNSPlatform

/// Who may join a Socket.IO namespace (decision 0020). `/` is open (WeeMo connects it beside its room). A room's
/// namespace `/chats-{room_id}` needs a room that exists and whose participants are both still there. The room id
/// is unguessable and only ever given to its participants, so a client that sends no credentials on its socket
/// (BuyOrNot sends no headers) joins on the strength of the id. A client that sends credentials (WeeMo sends
/// `SesacKey` and `Authorization`) has them checked: a wrong key, an expired or invalid token, or a token of
/// someone who is not a participant is refused. Refusals carry the original server's messages.
struct SocketAuthorizer: Sendable {
    struct Refusal: Error, Equatable {
        var message: String
    }

    static let invalidNamespace = "Invalid namespace"
    static let roomNotFound = "채팅방을 찾을 수 없습니다."
    static let notParticipant = "채팅방 참여자가 아닙니다."
    static let expiredToken = "액세스 토큰이 만료되었습니다."
    static let invalidToken = "인증할 수 없는 엑세스 토큰입니다."

    let store: ChatStore
    let verifier: AccessTokenVerifier
    let apiKey: String
    /// The registered G2 apps (`SNS_PRODUCT_IDS`); a socket naming another `ProductId` is refused (decision 0021).
    let productIds: Set<String>
    let logger: Logger

    static func roomId(of namespace: String) -> String? {
        guard namespace.hasPrefix("/chats-") else { return nil }
        let id = String(namespace.dropFirst("/chats-".count))
        return ObjectID.isValid(id) ? id : nil
    }

    /// The room the namespace belongs to (nil for `/`), or why the client may not join it.
    func authorize(namespace: String, handshake: EngineSession.Handshake) async -> Result<String?, Refusal> {
        if namespace == "/" { return .success(nil) }
        guard namespace.hasPrefix("/chats-") else { return .failure(Refusal(message: Self.invalidNamespace)) }
        if let key = handshake.sesacKey, key != apiKey {
            return .failure(Refusal(message: APIError.invalidAPIKey().message))
        }
        if let productId = handshake.productId, !productIds.contains(productId) {
            return .failure(Refusal(message: APIError.invalidProductId().message))
        }

        var caller: String?
        if let token = handshake.authorization, !token.isEmpty {
            switch await verifier.verify(token) {
            case .valid(let user): caller = user.userId
            case .expired: return .failure(Refusal(message: Self.expiredToken))
            case .invalid: return .failure(Refusal(message: Self.invalidToken))
            }
        }
        guard let roomId = Self.roomId(of: namespace) else { return .failure(Refusal(message: Self.roomNotFound)) }
        do {
            let live = try await store.client.withConnection { connection in
                try await store.liveRoom(roomId, on: connection, logger: logger)?.0
            }
            guard let room = live else { return .failure(Refusal(message: Self.roomNotFound)) }
            if let caller, !room.includes(caller) { return .failure(Refusal(message: Self.notParticipant)) }
            return .success(roomId)
        } catch {
            logger.warning("socket authorization failed", metadata: ["error": "\(error)"])
            return .failure(Refusal(message: "일시적으로 사용할 수 없습니다. (temporarily unavailable)"))
        }
    }
}
