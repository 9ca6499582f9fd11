import Foundation
import SNSTestSupport
import Testing

/// WeeMo (위모, github.com/TeamWeeMo/WeeMo, late 2025, G2): meet-ups in rented spaces. Operators list spaces
/// (category `space`), hosts create meets (category `meet`, `value1…6`, a price per person and the space's place)
/// and pay for them through the iamport SDK, guests find meets in a list or on a map, like them and pay to join;
/// a Pinterest-like feed (category `feed`, title `""`) carries photos and comments; a profile shows one's meets,
/// feeds, liked meets, reserved spaces and payments; the profile screen also withdraws; a guest chats with a meet's
/// host.
///
/// The app's network layer (`WeeMo/WeeMo/Network/Core/APIRouter.swift`, `Network/Core/NetworkService.swift`,
/// `Feature/Auth/AuthInterceptor.swift`, `Network/Endpoints/*.swift`): Alamofire `URLRequestConvertible` routers.
/// Every request carries `SeSACKey`, `ProductId` and `Content-Type: application/json` (GETs too), then
/// `Authorization` (the bare access token from the keychain) when the route needs it, then the route's extra
/// headers (`RefreshToken` on the refresh). Parameters are `URLEncoding.default` for GETs (keys sorted) and
/// `JSONEncoding.default` (`JSONSerialization`, so `/` is written `\/` and key order is the dictionary's) otherwise.
/// Uploads are `session.upload(multipartFormData:with:)` with one `files` part per file: the feed composer names
/// them `file_<i>.<ext>` after sniffing the bytes (`NetworkService.upload`), meets and spaces send the media
/// item's own name `image_<UUID>.jpg` / `image/jpeg` (`NetworkService.multipartUpload`, `Models/MediaItem.swift`).
/// Every request is `.validate()`d (200..<300) and decoded with a plain `JSONDecoder()` (dates stay strings).
///
/// Tokens: `AuthInterceptor.retry` reacts to 419 only: `GET /v1/auth/refresh` (the expired access token in
/// `Authorization`, the refresh token in `RefreshToken`) on a session without interceptor, stores both tokens of
/// `RefreshTokenDTO` and retries (the router is re-encoded, so the new token is sent). A failed refresh clears the
/// keychain and posts `.forceLogout`; `NetworkService.requestWithRetry` (Decodable requests only) then sees the
/// 419 as `accessTokenExpired`, which `shouldRetry`, and sends the request again after 1 s, now without
/// `Authorization` (the keychain is empty).
///
/// Chat (`Network/Endpoints/ChatRouter.swift`, `Services/ChatService.swift`, `Services/ChatSocketIOManager.swift`):
/// the same routers and headers. The meet detail's "채팅" opens a room with the meet's creator (`POST /v1/chats`
/// `{opponent_id}`, decoded as `ChatRoomDTO`); the chat tab lists rooms (`GET /v1/chats`) and shows only those with
/// a `lastChat`. A chat screen reads the member's Realm first: an empty one loads `GET /v1/chats/{room_id}` without a
/// query; otherwise the stored messages are shown and a background sync sends `before` = the newest stored date
/// (`ISO8601DateFormatter()`, whole seconds) and saves what is new; "이전 메시지 더보기" sends `before` = the
/// oldest's date. A text is `POST /v1/chats/{room_id}` JSON `{content}`; picked photos and videos are uploaded in one
/// multipart request to `POST /v1/chats/{room_id}/files` (`NetworkService.uploadMedia`: `image_<i>.jpg|png|gif|webp`
/// by the bytes, anything else `video_<i>.mp4` / `video/mp4`), then sent as `{content: "", files}`. Dates are parsed
/// with a plain `ISO8601DateFormatter()` first, then `DateFormatter` patterns (`…ss.SSS'Z'` in UTC). The socket:
/// SocketIO-Client-Swift's `SocketManager` on `http://{host}:{port}` with `.compress` and `.extraHeaders`
/// (`SeSACKey`, `ProductId`, the keychain's `Authorization`), default transports (long-polling, then WebSocket),
/// the namespace `/chats-{room_id}` (and `/` beside it); `chat` events are read as dictionaries
/// (`handleReceivedMessage`), never with a `Decodable`. After a send the app emits five guessed events, which the
/// server drops (not mirrored). The socket is driven by python-socketio (`SocketIOTestClient`), which joins the
/// room's namespace only (not `/`) and asks for no compression. The Realm is mirrored as a dictionary by `chat_id`,
/// and the screen's background sync runs after the stored messages are shown rather than beside them.
///
/// Mirrored files (under `WeeMo/WeeMo/`): `Network/Core/APIRouter.swift`, `Network/Core/NetworkService.swift`,
/// `Network/Core/NetworkErrorMapper.swift`, `Network/Core/NetworkError.swift`, `Network/Endpoints/AuthRouter.swift`,
/// `UserRouter.swift`, `PostRouter.swift`, `CommentRouter.swift`, `PaymentRouter.swift`, `FileRouter.swift`,
/// `Network/DTOs/*.swift`, `Feature/Auth/AuthInterceptor.swift`, `Feature/Auth/AuthService.swift`,
/// `Common/Managers/TokenManager.swift`, `Common/Managers/LikeManager.swift`, the stores under `Feature/`
/// (Sign, Login, Profile, Feed, Meet, Space) and `Feature/Meet/Detail/MeetPaymentView.swift`; for chat
/// `Network/Endpoints/ChatRouter.swift`, `Network/DTOs/ChatDTO.swift`, `Models/Chat.swift`, `Models/User.swift`,
/// `Models/Mappers/ChatMapper.swift`, `Models/Mappers/UserMapper.swift`, `Models/Realm/ChatRealmService.swift`,
/// `Models/Realm/ChatMessageRealm.swift`, `Services/ChatService.swift`, `Services/ChatSocketIOManager.swift`,
/// `Feature/Chat/Intent/ChatListStore.swift`, `ChatListState.swift`, `ChatDetailStore.swift`,
/// `Feature/Chat/ChatDetailView.swift`, `Feature/Chat/Components/ChatInputBar.swift`, `ChatBubbleView.swift` and
/// `Feature/Meet/Detail/Intent/MeetDetailStore.swift` (at commit dc8ab42, the repository's newest).
///
/// Departures, all forced by files the app does not commit (`WeeMo/WeeMo/Secret/` is git-ignored):
/// `NetworkConstants.baseURL`/`apiVersion` are taken as the gateway and `/v1`; `NetworkConstants.productId` is the
/// test stack's registered product id; `HTTPHeaderKey` is taken as `SeSACKey`, `ProductId`, `Content-Type`,
/// `Authorization`, `RefreshToken`; `PostCategory`'s raw values are taken as `feed`, `meet` and `space`. The
/// photo pickers' JPEGs are replaced by the PNG test image (sent under the name and type the app would declare for
/// its JPEG, except in the feed composer, whose sniffing names PNG bytes `file_0.png`/`image/png`). iamport's UI is
/// the PortOne sandbox, and `merchant_uid` (`weemo_<milliseconds>`) gets a unique tail. `NetworkService`'s 1 s
/// retry delay is not waited for. `NetworkConstants.port` (the socket's) is the gateway's.
enum WeeMoTwin {
    static let productId = TestEnvironment.productId
    static let apiVersion = "/v1"

    /// `PostCategory` (git-ignored; raw values inferred).
    enum PostCategory: String, Sendable {
        case feed
        case meet
        case space
    }

    // MARK: DTOs (WeeMo/WeeMo/Network/DTOs/…)

    // ServerResponseDTO.swift
    struct ServerResponseDTO: Decodable, Sendable { let message: String }

    // AuthDTO.swift
    struct AuthDTO: Decodable, Sendable {
        let userId: String
        let email: String
        let nick: String
        let profileImage: String?
        let accessToken: String
        let refreshToken: String

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case email, nick, profileImage, accessToken, refreshToken
        }
    }

    // AuthDTO.swift
    struct RefreshTokenDTO: Decodable, Sendable {
        let accessToken: String
        let refreshToken: String
    }

    // UserDTO.swift
    struct UserDTO: Decodable, Sendable {
        let userId: String
        let nick: String
        let profileImage: String?

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case nick, profileImage
        }
    }

    // PostDTO.swift
    struct PostDTO: Decodable, Sendable {
        let postId: String
        let category: String
        let title: String
        let price: Int?
        let content: String
        let value1: String?
        let value2: String?
        let value3: String?
        let value4: String?
        let value5: String?
        let value6: String?
        let value7: String?
        let value8: String?
        let value9: String?
        let value10: String?
        let createdAt: String
        let creator: UserDTO
        let files: [String]
        let likes: [String]
        let likes2: [String]
        let buyers: [String]
        let hashTags: [String]
        let commentCount: Int
        let geolocation: GeolocationDTO
        let distance: Double?

        enum CodingKeys: String, CodingKey {
            case postId = "post_id"
            case category, title, price, content
            case value1, value2, value3, value4, value5
            case value6, value7, value8, value9, value10
            case createdAt, creator, files, likes, likes2, buyers, hashTags
            case commentCount = "comment_count"
            case geolocation, distance
        }
    }

    // PostDTO.swift
    struct GeolocationDTO: Decodable, Sendable {
        let longitude: Double
        let latitude: Double
    }

    // PostDTO.swift
    struct PostListDTO: Decodable, Sendable {
        let data: [PostDTO]
        let nextCursor: String?

        enum CodingKeys: String, CodingKey {
            case data
            case nextCursor = "next_cursor"
        }
    }

    // CommentDTO.swift
    struct CommentDTO: Decodable, Sendable {
        let commentId: String
        let content: String
        let createdAt: String
        let creator: UserDTO
        let replies: [CommentDTO]?

        enum CodingKeys: String, CodingKey {
            case commentId = "comment_id"
            case content, createdAt, creator, replies
        }
    }

    // CommentDTO.swift
    struct CommentListDTO: Decodable, Sendable { let data: [CommentDTO] }

    // FileDTO.swift
    struct FileDTO: Decodable, Sendable { let files: [String] }

    // LikeStatusDTO.swift
    struct LikeStatusDTO: Decodable, Sendable {
        let likeStatus: Bool

        enum CodingKeys: String, CodingKey { case likeStatus = "like_status" }
    }

    // PaymentDTO.swift (the meet screens decode the validation answer with this one)
    struct PaymentHistoryDTO: Decodable, Sendable {
        let buyerId: String
        let postId: String
        let merchantUid: String
        let productName: String
        let price: Int
        let paidAt: String

        enum CodingKeys: String, CodingKey {
            case buyerId = "buyer_id"
            case postId = "post_id"
            case merchantUid = "merchant_uid"
            case productName, price, paidAt
        }
    }

    // PaymentDTO.swift
    struct PaymentHistoryListDTO: Decodable, Sendable { let data: [PaymentHistoryDTO] }

    // ProfileDTO.swift (also used for other users' profiles: `email` is required there too)
    struct ProfileDTO: Decodable, Sendable {
        let userId: String
        let email: String
        let nick: String
        let profileImage: String?
        let phoneNum: String?
        let gender: String?
        let birthDay: String?
        let info1: String?
        let info2: String?
        let info3: String?
        let info4: String?
        let info5: String?
        let followers: [UserDTO]
        let following: [UserDTO]
        let posts: [String]

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case email, nick, profileImage, phoneNum, gender, birthDay
            case info1, info2, info3, info4, info5
            case followers, following, posts
        }
    }

    // ChatDTO.swift (`ChatRoomResponseDTO`, `{opponent_id}`, is only decoded by `ChatService.createOrFetchRoom`,
    // which nothing calls: MeetDetailStore decodes the room with `ChatRoomDTO`)
    struct ChatMessageDTO: Decodable, Sendable {
        let chatId: String
        let roomId: String
        let content: String
        let createdAt: String
        let sender: UserDTO
        let files: [String]

        enum CodingKeys: String, CodingKey {
            case chatId = "chat_id"
            case roomId = "room_id"
            case content, createdAt, sender, files
        }
    }

    // ChatDTO.swift
    struct ChatRoomDTO: Decodable, Sendable {
        let roomId: String
        let createdAt: String
        let updatedAt: String
        let participants: [UserDTO]
        let lastChat: ChatMessageDTO?

        enum CodingKeys: String, CodingKey {
            case roomId = "room_id"
            case createdAt, updatedAt, participants, lastChat
        }
    }

    // ChatDTO.swift
    struct ChatRoomListDTO: Decodable, Sendable { let data: [ChatRoomDTO] }

    // ChatDTO.swift
    struct ChatMessageListDTO: Decodable, Sendable { let data: [ChatMessageDTO] }

    // MARK: Routers (Network/Endpoints/…)

    /// One case per router case the journeys reach; `request(token:key:)` is `APIRouter.asURLRequest()`.
    enum Router: Sendable {
        // AuthRouter.swift
        case emailValidation(email: String)
        case join(email: String, password: String, nickname: String)
        case login(email: String, password: String)
        case refreshToken(refreshToken: String)
        case withdraw
        // UserRouter.swift
        case updateMyProfile(nickname: String?)
        case fetchMyProfile
        case fetchUserProfile(userId: String)
        // PostRouter.swift
        case uploadFiles
        case createPost(
            title: String, price: Int?, content: String, category: PostCategory, files: [String],
            additionalFields: [String: String]?, latitude: Double?, longitude: Double?)
        case fetchPosts(next: String?, limit: Int?, category: PostCategory?)
        case fetchPost(postId: String)
        case deletePost(postId: String)
        case likePost(postId: String, likeStatus: Bool)
        case fetchMyLikedPosts(next: String?, limit: Int?, category: PostCategory?)
        case fetchUserPosts(userId: String, next: String?, limit: Int?, category: PostCategory?)
        case searchByLocation(
            category: PostCategory?, longitude: Double, latitude: Double, maxDistance: Int?, orderBy: String?,
            sortBy: String?)
        case searchByTitle(title: String, category: PostCategory?)
        // CommentRouter.swift
        case fetchComments(postId: String)
        case createComment(postId: String, content: String)
        case deleteComment(postId: String, commentId: String)
        // PaymentRouter.swift
        case fetchMyPayments
        case validatePayment(impUid: String, postId: String)
        // FileRouter.swift
        case downloadFile(filePath: String)
        // ChatRouter.swift
        case createOrFetchRoom(opponentUserId: String)
        case fetchRoomList
        case fetchMessages(roomId: String, cursorDate: String?)
        case sendMessage(roomId: String, content: String, files: [String]?)
        case uploadChatFiles(roomId: String)

        var method: String {
            switch self {
            case .emailValidation, .join, .login, .uploadFiles, .createPost, .likePost, .createComment,
                .validatePayment, .createOrFetchRoom, .sendMessage, .uploadChatFiles:
                "POST"
            case .updateMyProfile: "PUT"
            case .deletePost, .deleteComment: "DELETE"
            default: "GET"
            }
        }

        var path: String {
            let version = WeeMoTwin.apiVersion
            switch self {
            case .emailValidation: return "\(version)/users/validation/email"
            case .join: return "\(version)/users/join"
            case .login: return "\(version)/users/login"
            case .refreshToken: return "\(version)/auth/refresh"
            case .withdraw: return "\(version)/users/withdraw"
            case .updateMyProfile, .fetchMyProfile: return "\(version)/users/me/profile"
            case .fetchUserProfile(let userId): return "\(version)/users/\(userId)/profile"
            case .uploadFiles: return "\(version)/posts/files"
            case .createPost, .fetchPosts: return "\(version)/posts"
            case .fetchPost(let postId), .deletePost(let postId): return "\(version)/posts/\(postId)"
            case .likePost(let postId, _): return "\(version)/posts/\(postId)/like"
            case .fetchMyLikedPosts: return "\(version)/posts/likes/me"
            case .fetchUserPosts(let userId, _, _, _): return "\(version)/posts/users/\(userId)"
            case .searchByLocation: return "\(version)/posts/geolocation"
            case .searchByTitle: return "\(version)/posts/search"
            case .fetchComments(let postId), .createComment(let postId, _):
                return "\(version)/posts/\(postId)/comments"
            case .deleteComment(let postId, let commentId): return "\(version)/posts/\(postId)/comments/\(commentId)"
            case .fetchMyPayments: return "\(version)/payments/me"
            case .validatePayment: return "\(version)/payments/validation"
            case .downloadFile(let filePath): return "\(version)\(filePath)"
            case .createOrFetchRoom, .fetchRoomList: return "\(version)/chats"
            case .fetchMessages(let roomId, _), .sendMessage(let roomId, _, _): return "\(version)/chats/\(roomId)"
            case .uploadChatFiles(let roomId): return "\(version)/chats/\(roomId)/files"
            }
        }

        var needsAuthorization: Bool {
            switch self {
            case .emailValidation, .join, .login: false
            default: true
            }
        }

        /// `Parameters` as the router builds them (`[String: Any]`).
        var parameters: [String: Any]? {
            switch self {
            case .emailValidation(let email): return ["email": email]
            case .join(let email, let password, let nickname):
                return ["email": email, "password": password, "nick": nickname]
            case .login(let email, let password): return ["email": email, "password": password]
            case .updateMyProfile(let nickname):
                guard let nickname else { return nil }
                return ["nick": nickname]
            case .createPost(
                let title, let price, let content, let category, let files, let additionalFields, let latitude,
                let longitude):
                var params: [String: Any] = [
                    "title": title, "content": content, "category": category.rawValue, "files": files,
                ]
                if let price { params["price"] = price }
                if let additionalFields { params.merge(additionalFields) { _, new in new } }
                if let latitude, let longitude {
                    params["latitude"] = latitude
                    params["longitude"] = longitude
                }
                return params
            case .fetchPosts(let next, let limit, let category),
                .fetchMyLikedPosts(let next, let limit, let category),
                .fetchUserPosts(_, let next, let limit, let category):
                var params: [String: Any] = [:]
                if let next { params["next"] = next }
                if let limit { params["limit"] = limit }
                if let category { params["category"] = category.rawValue }
                return params.isEmpty ? nil : params
            case .likePost(_, let likeStatus): return ["like_status": likeStatus]
            case .searchByLocation(let category, let longitude, let latitude, let maxDistance, let orderBy, let sortBy):
                var params: [String: Any] = ["longitude": longitude, "latitude": latitude]
                if let category { params["category"] = category.rawValue }
                if let maxDistance { params["maxDistance"] = maxDistance }
                if let orderBy { params["order_by"] = orderBy }
                if let sortBy { params["sort_by"] = sortBy }
                return params
            case .searchByTitle(let title, let category):
                var params: [String: Any] = ["title": title]
                if let category { params["category"] = category.rawValue }
                return params
            case .createComment(_, let content): return ["content": content]
            case .validatePayment(let impUid, let postId): return ["imp_uid": impUid, "post_id": postId]
            case .createOrFetchRoom(let opponentUserId): return ["opponent_id": opponentUserId]
            case .fetchMessages(_, let cursorDate):
                guard let cursorDate else { return nil }
                return ["before": cursorDate]
            case .sendMessage(_, let content, let files):
                var params: [String: Any] = ["content": content]
                if let files { params["files"] = files }
                return params
            default: return nil
            }
        }

        /// `APIRouter.headers`: SeSACKey, ProductId, Content-Type, then Authorization, then the extra headers.
        func headers(token: String?, key: String) -> [(String, String)] {
            var headers = [("SeSACKey", key), ("ProductId", WeeMoTwin.productId), ("Content-Type", "application/json")]
            if needsAuthorization, let token { headers.append(("Authorization", token)) }
            if case .refreshToken(let refreshToken) = self { headers.append(("RefreshToken", refreshToken)) }
            return headers
        }

        /// `asURLRequest()`: GETs (and the upload, `URLEncoding.default`) put the parameters in the query with
        /// Alamofire's sorted encoding; everything else is `JSONEncoding.default`.
        func request(token: String?, key: String) throws -> TwinRequest {
            var request = TwinRequest(method, path, headers: headers(token: token, key: key))
            guard let parameters else { return request }
            if method == "GET" || self.isUpload {
                request.query = TwinQuery.alamofire(parameters.map { ($0.key, "\($0.value)") })
            } else {
                request.body = try JSONSerialization.data(withJSONObject: parameters)
            }
            return request
        }

        var isUpload: Bool {
            if case .uploadFiles = self { return true }
            return false
        }

        /// `session.upload(multipartFormData:with: PostRouter.uploadFiles)` (or `ChatRouter.uploadChatFiles`): the
        /// router's headers, with Alamofire's multipart `Content-Type` in place of the JSON one.
        static func upload(
            _ files: [(fileName: String, mimeType: String, bytes: [UInt8])], to route: Router = .uploadFiles,
            token: String?, key: String
        ) throws -> TwinRequest {
            var form = TwinMultipart()
            for file in files {
                form.file("files", filename: file.fileName, mimeType: file.mimeType, bytes: file.bytes)
            }
            let headers = route.headers(token: token, key: key).filter { $0.0 != "Content-Type" }
            return TwinRequest.multipart(route.method, route.path, form, headers: headers)
        }
    }

    /// `NetworkService.upload` (the feed composer): names and types from the first bytes.
    static func feedFileInfo(_ bytes: [UInt8], index: Int) -> (fileName: String, mimeType: String) {
        if bytes.count >= 12, bytes[4] == 0x66, bytes[5] == 0x74, bytes[6] == 0x79, bytes[7] == 0x70 {
            return ("file_\(index).mp4", "video/mp4")
        }
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 { return ("file_\(index).jpg", "image/jpeg") }
        if bytes.count >= 8, bytes[0] == 0x89, bytes[1] == 0x50, bytes[2] == 0x4E, bytes[3] == 0x47 {
            return ("file_\(index).png", "image/png")
        }
        return ("file_\(index).jpg", "image/jpeg")
    }

    // MARK: The signed-in app (TokenManager + AuthInterceptor + NetworkService)

    actor Session {
        let client: TwinClient
        let email: String
        let password: String
        /// The keychain (`TokenManager`).
        private(set) var accessToken: String?
        private(set) var refreshToken: String?
        private(set) var userId: String?
        private(set) var refreshes = 0
        private(set) var forcedLogouts = 0

        init(client: TwinClient, email: String, password: String) {
            self.client = client
            self.email = email
            self.password = password
        }

        /// SignStore: `validateEmail`, then `join`; only the tokens are saved (`TokenManager.saveTokens`), the
        /// user id is not (only LoginStore saves it).
        static func signUp(_ client: TwinClient, nick: String = TestEnvironment.unique("wm")) async throws -> Session {
            let email = "\(nick)@example.com"
            let session = Session(client: client, email: email, password: "weemo1234")
            let checked = try await session.call(.emailValidation(email: email), as: ServerResponseDTO.self)
            #expect(!checked.message.isEmpty)
            let joined = try await session.call(
                .join(email: email, password: session.password, nickname: nick), as: AuthDTO.self)
            #expect(joined.email == email && joined.nick == nick)
            await session.store(access: joined.accessToken, refresh: joined.refreshToken)
            return session
        }

        /// LoginStore: tokens and user id into the keychain.
        @discardableResult
        func login() async throws -> AuthDTO {
            let result = try await call(.login(email: email, password: password), as: AuthDTO.self)
            store(access: result.accessToken, refresh: result.refreshToken)
            userId = result.userId
            return result
        }

        func store(access: String, refresh: String) {
            accessToken = access
            refreshToken = refresh
        }

        /// `TokenManager.clearTokens()` (withdraw, a failed refresh).
        func clearTokens() {
            accessToken = nil
            refreshToken = nil
            userId = nil
        }

        /// A request through the session: `AuthInterceptor.retry` on 419 (refresh, store both, re-encode and
        /// resend); after a failed refresh `NetworkService.requestWithRetry` sends again (`decodable`: only the
        /// Decodable `request` has that loop; `request(_:)`, uploads and downloads do not).
        func send(_ route: Router, decodable: Bool = true) async throws -> GatewayClient.Reply {
            try await send(decodable: decodable) { try route.request(token: $0, key: $1) }
        }

        func upload(
            _ files: [(fileName: String, mimeType: String, bytes: [UInt8])], to route: Router = .uploadFiles
        ) async throws -> FileDTO {
            let reply = try await send(decodable: false) { try Router.upload(files, to: route, token: $0, key: $1) }
            #expect(reply.status == 200, "upload: \(reply.status) \(reply.text)")
            return try client.decode(FileDTO.self, from: reply)
        }

        private func send(
            decodable: Bool, _ build: @Sendable (String?, String) throws -> TwinRequest
        ) async throws -> GatewayClient.Reply {
            let key = client.apiKey
            var retryCount = 0
            while true {
                var reply = try await client.send(try build(accessToken, key))
                if reply.status == 419 {
                    if try await refresh() {
                        reply = try await client.send(try build(accessToken, key))
                        if reply.status != 419 { return reply }
                    }
                    // `accessTokenExpired.shouldRetry`: up to `maxRetryCount` (3) more sends, 1 s apart.
                    if decodable && retryCount < 3 {
                        retryCount += 1
                        continue
                    }
                }
                return reply
            }
        }

        /// `AuthInterceptor`: the refresh on a session without interceptor; on failure the keychain is cleared
        /// and `.forceLogout` is posted.
        private func refresh() async throws -> Bool {
            guard let refreshToken else {
                forcedLogouts += 1
                return false
            }
            let renewed = try await client.send(
                try Router.refreshToken(refreshToken: refreshToken).request(token: accessToken, key: client.apiKey))
            if (200..<300).contains(renewed.status),
                let tokens = try? client.decode(RefreshTokenDTO.self, from: renewed)
            {
                store(access: tokens.accessToken, refresh: tokens.refreshToken)
                refreshes += 1
                return true
            }
            clearTokens()
            forcedLogouts += 1
            return false
        }

        /// `networkService.request(router, responseType:)`: `.validate()`, then the app's type.
        func call<Model: Decodable>(
            _ route: Router, as type: Model.Type, status: Int = 200,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> Model {
            let reply = try await send(route)
            #expect(
                reply.status == status, "\(route.method) \(route.path): \(reply.status) \(reply.text)",
                sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        // MARK: Time passing (test side only)

        func letAccessTokenExpire() async throws {
            let token = try #require(accessToken)
            let user = try #require(userId)
            accessToken = try await TwinTokens.expired(sameSessionAs: token, userId: user)
        }

        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: try #require(accessToken))
        }
    }

    /// FeedStore / MeetListStore: the first page, then `next_cursor` until the store stops; returns the ids in
    /// the order shown and the cursors answered.
    static func page(
        _ session: Session, category: PostCategory, limit: Int, meetList: Bool = false
    ) async throws -> (ids: [String], cursors: [String?]) {
        var ids: [String] = []
        var cursors: [String?] = []
        var next: String? = nil
        repeat {
            let page = try await session.call(
                .fetchPosts(next: next, limit: limit, category: category), as: PostListDTO.self)
            #expect(page.data.count <= limit)
            #expect(page.data.allSatisfy { $0.category == category.rawValue })
            ids += page.data.map(\.postId)
            cursors.append(page.nextCursor)
            next = page.nextCursor
            // FeedState.hasMore: nil, "" and "0" stop; MeetListStore: only nil stops.
            if !meetList, next == "0" || next?.isEmpty == true { break }
            if meetList, next == "0", cursors.count >= 2, cursors[cursors.count - 2] == "0" { break }
        } while next != nil && cursors.count < 1_000
        return (ids, cursors)
    }

    /// MeetPaymentViewController: the iamport SDK pays `amount` for `merchant_uid` "weemo_<ms>" and answers
    /// `imp_uid` (the PortOne sandbox here).
    static func pay(amount: Int, name: String) async throws -> (impUid: String, merchantUid: String) {
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let merchantUid =
            "weemo_\(Int(Date().timeIntervalSince1970 * 1000))_\(TestEnvironment.unique("wm"))"
        let paid = try await sandbox.send(
            "POST", "/__sandbox/payments",
            json: #"{"merchant_uid":"\#(merchantUid)","amount":\#(amount),"name":"\#(name)"}"#)
        #expect(paid.status == 200, "\(paid.text)")
        return (try #require(try paid.json.string("imp_uid")), merchantUid)
    }

    // MARK: Chat (Models/Chat.swift, Models/Mappers/, Models/Realm/, Services/ChatService.swift, the chat stores)

    // Models/User.swift (UserMapper.swift: `UserDTO.toDomain()`)
    struct User: Sendable, Equatable {
        let userId: String
        let nickname: String
        let profileImageURL: String?
    }

    // Models/Chat.swift
    struct ChatMessage: Sendable, Equatable {
        let id: String
        let roomId: String
        let content: String
        let createdAt: Date
        let sender: User
        let files: [String]
    }

    // Models/Chat.swift
    struct ChatRoom: Sendable {
        let id: String
        let participants: [User]
        let lastChat: ChatMessage?
        let createdAt: Date
        let updatedAt: Date
    }

    /// `ChatMessageDTO.parseDate` (Services/ChatService.swift) and `ChatMessageRealm.parseDate`
    /// (Models/Realm/ChatMessageRealm.swift), the same list: `ISO8601DateFormatter()` (no fractional seconds), then
    /// `DateFormatter`s without a locale; nothing parses → now.
    static func parseDate(_ string: String) -> Date {
        if let date = ISO8601DateFormatter().date(from: string) { return date }
        let formats: [(String, TimeZone?)] = [
            ("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'", TimeZone(secondsFromGMT: 0)),
            ("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", TimeZone(secondsFromGMT: 0)),
            ("yyyy-MM-dd'T'HH:mm:ss'Z'", TimeZone(secondsFromGMT: 0)),
            ("yyyy-MM-dd HH:mm:ss", nil),
            ("yyyy-MM-dd'T'HH:mm:ss.SSSSSS", nil),
            ("yyyy-MM-dd'T'HH:mm:ss.SSS", nil),
            ("yyyy-MM-dd'T'HH:mm:ss", nil),
        ]
        for (format, timeZone) in formats {
            let formatter = DateFormatter()
            formatter.dateFormat = format
            if let timeZone { formatter.timeZone = timeZone }
            if let date = formatter.date(from: string) { return date }
        }
        return Date()
    }

    /// `ChatListStore.parseDate` (the rooms' `lastChat`): the same idea with UTC and `en_US_POSIX`; nil → now.
    static func listParseDate(_ string: String) -> Date? {
        if let date = ISO8601DateFormatter().date(from: string) { return date }
        for format in [
            "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'", "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", "yyyy-MM-dd'T'HH:mm:ss'Z'",
            "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
            "yyyy-MM-dd'T'HH:mm:ssXXX",
        ] {
            let formatter = DateFormatter()
            formatter.dateFormat = format
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.locale = Locale(identifier: "en_US_POSIX")
            if let date = formatter.date(from: string) { return date }
        }
        return nil
    }

    /// ChatMapper.swift: ISO-8601 with fractional seconds (the room MeetDetailStore opens).
    static func mapperDate(_ string: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: string)
    }

    static func user(_ dto: UserDTO) -> User {
        User(userId: dto.userId, nickname: dto.nick, profileImageURL: dto.profileImage)
    }

    /// `ChatMessageDTO.toChatMessage()` (Services/ChatService.swift): every REST message the chat screen shows.
    static func chatMessage(_ dto: ChatMessageDTO) -> ChatMessage {
        ChatMessage(
            id: dto.chatId, roomId: dto.roomId, content: dto.content, createdAt: parseDate(dto.createdAt),
            sender: user(dto.sender), files: dto.files)
    }

    /// `ChatRoomDTO.toDomain()` (ChatMapper.swift): the room MeetDetailStore navigates to.
    static func chatRoom(_ dto: ChatRoomDTO) -> ChatRoom {
        ChatRoom(
            id: dto.roomId, participants: dto.participants.map(user),
            lastChat: dto.lastChat.map {
                ChatMessage(
                    id: $0.chatId, roomId: $0.roomId, content: $0.content,
                    createdAt: mapperDate($0.createdAt) ?? Date(), sender: user($0.sender), files: $0.files)
            },
            createdAt: mapperDate(dto.createdAt) ?? Date(), updatedAt: mapperDate(dto.updatedAt) ?? Date())
    }

    /// `ChatListStore.convertToChatRooms`: the room dates through a plain `ISO8601DateFormatter()` (now when it
    /// fails), `lastChat` through `listParseDate`.
    static func convertToChatRooms(_ dtos: [ChatRoomDTO]) -> [ChatRoom] {
        dtos.map { dto in
            ChatRoom(
                id: dto.roomId, participants: dto.participants.map(user),
                lastChat: dto.lastChat.map {
                    ChatMessage(
                        id: $0.chatId, roomId: $0.roomId, content: $0.content,
                        createdAt: listParseDate($0.createdAt) ?? Date(), sender: user($0.sender), files: $0.files)
                },
                createdAt: ISO8601DateFormatter().date(from: dto.createdAt) ?? Date(),
                updatedAt: ISO8601DateFormatter().date(from: dto.updatedAt) ?? Date())
        }
    }

    /// `ChatListState.filteredChatRooms`: rooms with a `lastChat` only, and not a room with oneself.
    static func filteredChatRooms(_ rooms: [ChatRoom], currentUserId: String) -> [ChatRoom] {
        rooms.filter { room in
            guard room.lastChat != nil else { return false }
            if room.participants.count == 2 { return room.participants.contains { $0.userId != currentUserId } }
            return true
        }
    }

    /// The member's Realm (Models/Realm/ChatRealmService.swift, ChatMessageRealm.swift): messages by `chat_id`, a
    /// stored one never replaced, dates as `ChatMessageRealm` parses them, `profileImage` nil stored as "".
    struct ChatRealm: Sendable {
        private var stored: [String: ChatMessage] = [:]

        /// `saveChatMessage(s)`.
        mutating func save(_ dtos: [ChatMessageDTO]) {
            for dto in dtos where stored[dto.chatId] == nil {
                stored[dto.chatId] = ChatMessage(
                    id: dto.chatId, roomId: dto.roomId, content: dto.content,
                    createdAt: WeeMoTwin.parseDate(dto.createdAt),
                    sender: User(
                        userId: dto.sender.userId, nickname: dto.sender.nick,
                        profileImageURL: dto.sender.profileImage ?? ""),
                    files: dto.files)
            }
        }

        /// `fetchChatMessages(roomId:)`: oldest first.
        func fetchChatMessages(roomId: String) -> [ChatMessage] {
            stored.values.filter { $0.roomId == roomId }.sorted { $0.createdAt < $1.createdAt }
        }

        /// `fetchRecentMessages(roomId:before:limit:)`.
        func fetchRecentMessages(roomId: String, before messageId: String, limit: Int) -> [ChatMessage] {
            var messages = stored.values.filter { $0.roomId == roomId }
            if let before = stored[messageId] { messages = messages.filter { $0.createdAt < before.createdAt } }
            return Array(messages.sorted { $0.createdAt > $1.createdAt }.prefix(limit).reversed())
        }
    }

    /// `ChatService.fetchMessagesFromServer`: `GET /v1/chats/{room_id}` (`before` when given), saved, sorted.
    static func fetchMessagesFromServer(
        _ session: Session, roomId: String, cursorDate: String? = nil, realm: inout ChatRealm
    ) async throws -> [ChatMessage] {
        let list = try await session.call(
            .fetchMessages(roomId: roomId, cursorDate: cursorDate), as: ChatMessageListDTO.self)
        realm.save(list.data)
        return list.data.map(chatMessage).sorted { $0.createdAt < $1.createdAt }
    }

    /// `ChatService.fetchMessages`: an empty Realm loads from the server; otherwise the Realm's messages are returned
    /// at once and `syncLatestMessagesFromServer` runs in a background task: `before` = the newest stored message's
    /// date through `ISO8601DateFormatter()` (whole seconds), the messages not stored yet are saved — and not
    /// returned. Returns what was shown and what the catch-up saved.
    static func fetchMessages(
        _ session: Session, roomId: String, realm: inout ChatRealm
    ) async throws -> (shown: [ChatMessage], caughtUp: [ChatMessageDTO]) {
        let local = realm.fetchChatMessages(roomId: roomId)
        if local.isEmpty { return (try await fetchMessagesFromServer(session, roomId: roomId, realm: &realm), []) }
        let cursorDate = local.last.map { ISO8601DateFormatter().string(from: $0.createdAt) }
        let list = try await session.call(
            .fetchMessages(roomId: roomId, cursorDate: cursorDate), as: ChatMessageListDTO.self)
        let new = list.data.filter { dto in !local.contains { $0.id == dto.chatId } }
        realm.save(new)
        return (local, new)
    }

    /// `NetworkService.detectMediaType` (`uploadMedia`, the chat's uploads): names and types from the first 12 bytes;
    /// anything that is not JPEG, PNG, GIF or WebP is `video_<i>.mp4`.
    static func chatFileInfo(_ bytes: [UInt8], index: Int) -> (fileName: String, mimeType: String) {
        guard bytes.count > 12 else { return ("file_\(index)", "application/octet-stream") }
        let signature = bytes.prefix(12).map { String(format: "%02x", $0) }.joined()
        if signature.hasPrefix("ffd8ff") { return ("image_\(index).jpg", "image/jpeg") }
        if signature.hasPrefix("89504e47") { return ("image_\(index).png", "image/png") }
        if signature.hasPrefix("47494638") { return ("image_\(index).gif", "image/gif") }
        if signature.hasPrefix("52494646") { return ("image_\(index).webp", "image/webp") }
        return ("video_\(index).mp4", "video/mp4")
    }

    /// `ChatService.uploadChatFiles`: one multipart request, a `files` part per picked item.
    static func uploadChatFiles(_ session: Session, roomId: String, files: [[UInt8]]) async throws -> [String] {
        let parts = files.enumerated().map { index, bytes in
            let info = chatFileInfo(bytes, index: index)
            return (info.fileName, info.mimeType, bytes)
        }
        return try await session.upload(parts, to: .uploadChatFiles(roomId: roomId)).files
    }

    /// ChatDetailStore (Feature/Chat/Intent/ChatDetailStore.swift) over ChatService: what the chat screen shows.
    struct ChatDetail: Sendable {
        let roomId: String
        /// `TokenManager.userId`.
        let currentUserId: String
        private(set) var messages: [ChatMessage] = []
        /// "이전 메시지 더보기" is offered while true.
        private(set) var hasMoreMessages = true

        init(roomId: String, currentUserId: String) {
            self.roomId = roomId
            self.currentUserId = currentUserId
        }

        /// `loadMessages` (the view's `onAppear`, and pull to refresh): ChatService.fetchMessages, then duplicates
        /// removed by id and by sender + content + second, oldest first. Returns what the catch-up saved.
        @discardableResult
        mutating func loadMessages(_ session: Session, realm: inout ChatRealm) async throws -> [ChatMessageDTO] {
            let (fetched, caughtUp) = try await WeeMoTwin.fetchMessages(session, roomId: roomId, realm: &realm)
            var seenIds = Set<String>()
            var seenContentKeys = Set<String>()
            let unique = fetched.filter { message in
                let contentKey =
                    "\(message.sender.userId)_\(message.content)_\(Int(message.createdAt.timeIntervalSince1970))"
                guard !seenIds.contains(message.id), !seenContentKeys.contains(contentKey) else { return false }
                seenIds.insert(message.id)
                seenContentKeys.insert(contentKey)
                return true
            }
            messages = unique.sorted { $0.createdAt < $1.createdAt }
            return caughtUp
        }

        /// `sendMessage` → `ChatService.sendMessage`: `POST /v1/chats/{room_id}` (JSON `{content, files?}`), the
        /// answer saved in the Realm and appended unless shown already (same id, or same sender and content within
        /// 2 s). The five `socket.emit`s that follow are not mirrored (the server drops what clients emit).
        mutating func sendMessage(
            _ session: Session, content: String, files: [String]?, realm: inout ChatRealm
        ) async throws -> ChatMessage {
            let dto = try await session.call(
                .sendMessage(roomId: roomId, content: content, files: files), as: ChatMessageDTO.self)
            realm.save([dto])
            let sent = WeeMoTwin.chatMessage(dto)
            let isDuplicate = messages.contains {
                $0.id == sent.id
                    || ($0.content == sent.content && $0.sender.userId == sent.sender.userId
                        && abs($0.createdAt.timeIntervalSince(sent.createdAt)) < 2)
            }
            if !isDuplicate {
                messages.append(sent)
                messages.sort { $0.createdAt < $1.createdAt }
            }
            return sent
        }

        /// `loadMoreMessages(beforeMessageId:)` → `ChatService.loadMoreMessages`: older messages from the Realm if it
        /// has any; else `before` = that message's date through `ISO8601DateFormatter()`, the answer saved; none →
        /// `hasMoreMessages = false`, else those not shown are put in front.
        mutating func loadMoreMessages(
            _ session: Session, beforeMessageId: String, realm: inout ChatRealm
        ) async throws {
            var more = realm.fetchRecentMessages(roomId: roomId, before: beforeMessageId, limit: 50)
            if more.isEmpty {
                guard let before = realm.fetchChatMessages(roomId: roomId).first(where: { $0.id == beforeMessageId })
                else { return }
                let cursorDate = ISO8601DateFormatter().string(from: before.createdAt)
                let list = try await session.call(
                    .fetchMessages(roomId: roomId, cursorDate: cursorDate), as: ChatMessageListDTO.self)
                realm.save(list.data)
                more = list.data.map(WeeMoTwin.chatMessage)
            }
            if more.isEmpty {
                hasMoreMessages = false
            } else {
                let existingIds = Set(messages.map(\.id))
                messages.insert(contentsOf: more.filter { !existingIds.contains($0.id) }, at: 0)
            }
        }

        /// `handleReceivedMessage` (a socket message): this room's, not shown yet, not one's own just sent (same
        /// content within 5 s); appended, sorted, and saved in the Realm through an ISO-8601 string
        /// (`saveMessageToLocal`: whole seconds).
        mutating func receive(_ message: ChatMessage, realm: inout ChatRealm) {
            guard message.roomId == roomId, !messages.contains(where: { $0.id == message.id }) else { return }
            if message.sender.userId == currentUserId,
                messages.contains(where: {
                    $0.sender.userId == currentUserId && abs($0.createdAt.timeIntervalSince(message.createdAt)) < 5
                        && $0.content == message.content
                })
            {
                return
            }
            messages.append(message)
            messages.sort { $0.createdAt < $1.createdAt }
            realm.save([
                ChatMessageDTO(
                    chatId: message.id, roomId: message.roomId, content: message.content,
                    createdAt: ISO8601DateFormatter().string(from: message.createdAt),
                    sender: UserDTO(
                        userId: message.sender.userId, nick: message.sender.nickname,
                        profileImage: message.sender.profileImageURL),
                    files: message.files)
            ])
        }
    }

    /// `ChatSocketIOManager.getAuthHeaders()`: `SeSACKey` (Info.plist), `ProductId`, and the keychain's access token
    /// as it is (never refreshed for the socket).
    static func socketHeaders(token: String?, key: String) -> [String: String] {
        var headers = ["SeSACKey": key, "ProductId": productId]
        if let token { headers["Authorization"] = token }
        return headers
    }

    /// `ChatSocketIOManager.openWebSocket`: `SocketManager(socketURL: "http://{host}:{port}")` with `.compress` and
    /// `.extraHeaders`, default transports (long-polling, then the upgrade to WebSocket), the room's namespace
    /// `/chats-{room_id}`; `answers` are the other member's sends, posted over REST exactly as the app builds them
    /// once the socket is in.
    static func socketConfig(room: String, headers: [String: String], answers: [TwinRequest] = []) throws
        -> [String: Any]
    {
        let gateway = try TestEnvironment.gatewayURL()
        return [
            "url": gateway, "room": room, "transports": ["polling", "websocket"], "headers": headers,
            "rest": answers.map { request -> [String: Any] in
                [
                    "url": gateway, "headers": Dictionary(request.headers, uniquingKeysWith: { $1 }),
                    "body": String(decoding: request.body ?? Data(), as: UTF8.self),
                ]
            },
            "messages": answers.count, "timeout": 30,
        ]
    }

    /// `ChatSocketIOManager.handleReceivedMessage`: the `chat` event's first item as a dictionary (or a JSON
    /// string), keys looked up under several spellings, `createdAt` through `ISO8601DateFormatter()` (now when it
    /// fails), `files` `[]` when absent.
    static func socketMessage(_ data: Data) -> ChatMessage? {
        let item = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        var dict = item as? [String: Any]
        if dict == nil, let string = item as? String, let inner = string.data(using: .utf8) {
            dict = (try? JSONSerialization.jsonObject(with: inner)) as? [String: Any]
        }
        guard let dict else { return nil }
        let chatId = dict["chat_id"] as? String ?? dict["chatId"] as? String ?? dict["id"] as? String
        let roomId = dict["room_id"] as? String ?? dict["roomId"] as? String
        let content = dict["content"] as? String ?? dict["message"] as? String ?? dict["text"] as? String
        let createdAt =
            dict["createdAt"] as? String ?? dict["created_at"] as? String ?? dict["timestamp"] as? String
        guard let chatId, let roomId, let content, let createdAt else { return nil }
        let sender =
            dict["sender"] as? [String: Any] ?? dict["from"] as? [String: Any] ?? dict["user"] as? [String: Any]
        guard let sender,
            let senderId = sender["user_id"] as? String ?? sender["userId"] as? String ?? sender["id"] as? String,
            let senderNick = sender["nick"] as? String ?? sender["nickname"] as? String ?? sender["name"] as? String
        else { return nil }
        return ChatMessage(
            id: chatId, roomId: roomId, content: content,
            createdAt: ISO8601DateFormatter().date(from: createdAt) ?? Date(),
            sender: User(
                userId: senderId, nickname: senderNick,
                profileImageURL: sender["profileImage"] as? String ?? sender["profile_image"] as? String),
            files: dict["files"] as? [String] ?? [])
    }

    /// MeetEditStore.createMeet, as the meet journey does it: a photo (`image_<UUID>.jpg`), then the meet.
    static func hostMeet(_ client: TwinClient) async throws -> (host: Session, hostId: String, meetId: String) {
        let host = try await Session.signUp(client)
        let hostId = try await host.login().userId
        let photo = try await host.upload([("image_\(UUID().uuidString).jpg", "image/jpeg", TestImages.png)])
        let meet = try await host.call(
            .createPost(
                title: TestEnvironment.unique("보드게임 모임"), price: 9000, content: "같이 보드게임 해요", category: .meet,
                files: photo.files,
                additionalFields: [
                    "value1": "4", "value2": "0", "value3": "202512201400, 3",
                    "value5": "2025-12-01T05:00:00.000Z", "value6": "2025-12-19T05:00:00.000Z",
                ],
                latitude: 37.5, longitude: 127.0),
            as: PostDTO.self)
        return (host, hostId, meet.postId)
    }

    /// A member signs up, logs in and opens a chat with the meet's host from its detail ("채팅": `createChatRoom`
    /// with the creator, mapped by ChatMapper).
    static func guestOpensARoom(_ client: TwinClient, meetId: String) async throws -> (
        guest: Session, guestId: String, room: ChatRoom
    ) {
        let guest = try await Session.signUp(client)
        let guestId = try await guest.login().userId
        let meet = try await guest.call(.fetchPost(postId: meetId), as: PostDTO.self)
        let opened = try await guest.call(.createOrFetchRoom(opponentUserId: meet.creator.userId), as: ChatRoomDTO.self)
        return (guest, guestId, chatRoom(opened))
    }

    /// The guest sends one file as the chat sends a picked item or a voice memo (`uploadChatFiles`, then a message
    /// with content "" and its path); the host opens the room, sees that one message, and downloads the file.
    static func sendFileToTheHost(
        _ bytes: [UInt8], guest: Session, guestId: String, host: Session, hostId: String, room: ChatRoom
    ) async throws -> (path: String, download: GatewayClient.Reply) {
        var guestRealm = ChatRealm()
        var guestScreen = ChatDetail(roomId: room.id, currentUserId: guestId)
        try await guestScreen.loadMessages(guest, realm: &guestRealm)
        let paths = try await uploadChatFiles(guest, roomId: room.id, files: [bytes])
        let path = try #require(paths.first)
        let sent = try await guestScreen.sendMessage(guest, content: "", files: paths, realm: &guestRealm)
        #expect(sent.files == paths)
        var hostRealm = ChatRealm()
        var hostScreen = ChatDetail(roomId: room.id, currentUserId: hostId)
        try await hostScreen.loadMessages(host, realm: &hostRealm)
        #expect(hostScreen.messages.map(\.id) == [sent.id])
        return (path, try await host.send(.downloadFile(filePath: path), decodable: false))
    }
}

@Suite("WeeMo twin")
struct WeeMoTwinTests {
    typealias App = WeeMoTwin

    /// Sign-up (email check, join with tokens), the feed tab right after it, login, 21 feed posts written as the
    /// composer writes them (upload, then a post with title ""), a photo loaded at `{host}/v1{path}`, the feed
    /// scrolled to its end by another member, a like and unlike, the comment sheet (write, list, delete), the
    /// writer's profile and posts, one's own profile, and a profile edit with a photo.
    @Test func signUpFeedPagingLikesCommentsAndProfile() async throws {
        let client = try TwinClient()
        let writer = try await App.Session.signUp(client)
        // SignStore.validateEmail with the taken address: 409, shown under the field.
        let taken = try await writer.send(.emailValidation(email: writer.email))
        #expect(taken.status == 409, "\(taken.status) \(taken.text)")
        #expect(try !client.decode(App.ServerResponseDTO.self, from: taken).message.isEmpty)

        // After the join the app is signed in: the feed tab loads at once.
        let first = try await writer.call(.fetchPosts(next: nil, limit: 20, category: .feed), as: App.PostListDTO.self)
        #expect(first.data.count <= 20)
        // The profile tab's posts need `TokenManager.userId`, which SignStore never saves.
        let storedUserId = await writer.userId
        withKnownIssue(
            "WeeMo defect: Feature/Auth/Sign/SignStore.swift saves only the tokens after the join, so the profile tab (Feature/Auth/Profile/ProfileStore.swift) finds no user id until the next login"
        ) {
            #expect(storedUserId != nil)
        }
        let loggedIn = try await writer.login()
        let writerId = loggedIn.userId

        // FeedEditStore.submitPost: upload the photo (the first post: a video, sent as it is), then the post
        // (title "", no price, category feed).
        var written: [String] = []
        for index in 0..<21 {
            let bytes = index == 0 ? TestImages.mp4 : TestImages.png
            let info = App.feedFileInfo(bytes, index: 0)
            #expect(info.fileName == (index == 0 ? "file_0.mp4" : "file_0.png"))
            #expect(info.mimeType == (index == 0 ? "video/mp4" : "image/png"))
            let uploaded = try await writer.upload([(info.fileName, info.mimeType, bytes)])
            #expect(uploaded.files.count == 1 && uploaded.files[0].hasPrefix("/"), "\(uploaded.files)")
            let post = try await writer.call(
                .createPost(
                    title: "", price: nil, content: "오늘의 모임 기록 \(index) #위모", category: .feed,
                    files: uploaded.files, additionalFields: nil, latitude: nil, longitude: nil),
                as: App.PostDTO.self)
            #expect(post.category == "feed" && post.title == "" && post.files == uploaded.files)
            #expect(post.creator.userId == writerId && post.price == nil && post.commentCount == 0)
            written.append(post.postId)
        }
        let newest = try await writer.call(.fetchPost(postId: written[20]), as: App.PostDTO.self)
        // FileRouter / KingfisherHelper: `{host}/v1{path}` with the app's headers.
        let image = try await writer.send(.downloadFile(filePath: newest.files[0]), decodable: false)
        #expect(image.status == 200 && image.body == TestImages.png, "\(image.status)")
        // The video post: the path ends in .mp4 (the app tells a video by it) and the bytes come back.
        let video = try await writer.call(.fetchPost(postId: written[0]), as: App.PostDTO.self)
        #expect(video.files.count == 1 && video.files[0].hasSuffix(".mp4"), "\(video.files)")
        let played = try await writer.send(.downloadFile(filePath: video.files[0]), decodable: false)
        #expect(played.status == 200 && played.body == TestImages.mp4, "\(played.status)")

        // Another member scrolls the feed to its end (20 a page, FeedState.hasMore stops at "0").
        let reader = try await App.Session.signUp(client)
        let readerId = try await reader.login().userId
        let feed = try await App.page(reader, category: .feed, limit: 20)
        #expect(feed.cursors.last == "0", "\(feed.cursors)")
        #expect(Set(feed.ids).count == feed.ids.count, "a post shown twice")
        let mine = feed.ids.filter { written.contains($0) }
        #expect(mine == written.reversed(), "newest first")
        #expect(feed.cursors.count >= 2)

        // FeedDetailStore.toggleLike: the toggled state is sent; the answer is the truth.
        let liked = try await reader.call(.likePost(postId: written[20], likeStatus: true), as: App.LikeStatusDTO.self)
        #expect(liked.likeStatus)
        #expect(try await reader.call(.fetchPost(postId: written[20]), as: App.PostDTO.self).likes == [readerId])
        let unliked = try await reader.call(
            .likePost(postId: written[20], likeStatus: false), as: App.LikeStatusDTO.self)
        #expect(!unliked.likeStatus)

        // CommentStore: the sheet lists, a comment is written (the answer is appended), deleted, listed again.
        let empty = try await reader.call(.fetchComments(postId: written[20]), as: App.CommentListDTO.self)
        #expect(empty.data.isEmpty)
        let comment = try await reader.call(
            .createComment(postId: written[20], content: "사진 너무 좋아요! 다음 모임도 갈게요"), as: App.CommentDTO.self)
        #expect(comment.creator.userId == readerId && comment.content == "사진 너무 좋아요! 다음 모임도 갈게요")
        let listed = try await writer.call(.fetchComments(postId: written[20]), as: App.CommentListDTO.self)
        #expect(listed.data.map(\.commentId) == [comment.commentId])
        #expect(try await reader.call(.fetchPost(postId: written[20]), as: App.PostDTO.self).commentCount == 1)
        let deleted = try await reader.send(
            .deleteComment(postId: written[20], commentId: comment.commentId), decodable: false)
        #expect(deleted.status == 200, "\(deleted.text)")
        #expect(try await reader.call(.fetchComments(postId: written[20]), as: App.CommentListDTO.self).data.isEmpty)

        // ProfileStore for another member: the profile (ProfileDTO, `email` required) and the posts tab.
        let profile = try await reader.call(.fetchUserProfile(userId: writerId), as: App.ProfileDTO.self)
        #expect(profile.userId == writerId && profile.nick == loggedIn.nick && profile.email == "")
        #expect(profile.posts.count == 21)
        let meets = try await reader.call(
            .fetchUserPosts(userId: writerId, next: nil, limit: 20, category: .meet), as: App.PostListDTO.self)
        #expect(meets.data.isEmpty && meets.nextCursor == "0")
        let feeds = try await reader.call(
            .fetchUserPosts(userId: writerId, next: nil, limit: 20, category: .feed), as: App.PostListDTO.self)
        #expect(feeds.data.map(\.postId) == Array(written.reversed().prefix(20)))
        #expect(feeds.nextCursor != "0")

        // ProfileStore for oneself, then ProfileEditView with a new nick and a chosen photo.
        let me = try await reader.call(.fetchMyProfile, as: App.ProfileDTO.self)
        #expect(me.userId == readerId && me.email == reader.email && me.followers.isEmpty)
        let newNick = TestEnvironment.unique("위모")
        let edited = try await reader.call(.updateMyProfile(nickname: newNick), as: App.UserDTO.self)
        #expect(edited.userId == readerId && edited.nick == newNick)
        withKnownIssue(
            "WeeMo defect: Network/Endpoints/UserRouter.swift's updateMyProfile sends only {nick}; the chosen photo's JPEG (Feature/Auth/Profile/ProfileEditView.swift) is never uploaded"
        ) {
            #expect(edited.profileImage != nil)
        }
        let seen = try await writer.call(.fetchUserProfile(userId: readerId), as: App.ProfileDTO.self)
        #expect(seen.nick == newNick)
    }

    /// An operator lists a space; a host likes (reserves) it, creates a meet in it with a photo, pays for it; a
    /// guest finds it in the meet list (paged with `next` until the store stops), on the map and by title, likes
    /// it, pays to join, and sees it in the profile tabs (liked meets, payments); the host deletes it.
    @Test func hostCreatesAndPaysAMeetAGuestFindsLikesAndJoins() async throws {
        let client = try TwinClient()
        let (latitude, longitude) = (37.5 + Double.random(in: 0..<0.05), 127.0 + Double.random(in: 0..<0.05))

        // SpaceCreateStore: media upload (the item's own name), then the space post (price per hour), sent through
        // the Void `request(_:)`.
        let operatorSession = try await App.Session.signUp(client)
        try await operatorSession.login()
        let spacePhoto = try await operatorSession.upload([
            ("image_\(UUID().uuidString).jpg", "image/jpeg", TestImages.png)
        ])
        let spaceTitle = TestEnvironment.unique("스터디룸")
        let spaceCreated = try await operatorSession.send(
            .createPost(
                title: spaceTitle, price: 12000, content: "조용한 스터디룸 #스터디 #보드게임", category: .space,
                files: spacePhoto.files,
                additionalFields: [
                    "value1": "서울 강남구 역삼동", "value2": "스터디룸", "value3": "4.5", "value4": "12000", "value5": "true",
                    "value6": "false", "value7": "true", "value8": "6",
                ],
                latitude: latitude, longitude: longitude),
            decodable: false)
        #expect(spaceCreated.status == 200, "\(spaceCreated.text)")

        // The host reserves the space (MeetEditStore lists the liked spaces), then creates the meet.
        let host = try await App.Session.signUp(client)
        let hostId = try await host.login().userId
        let spaces = try await host.call(
            .searchByTitle(title: spaceTitle, category: .space), as: App.PostListDTO.self)
        let space = try #require(spaces.data.first)
        #expect(space.title == spaceTitle && space.price == 12000 && space.hashTags.contains("스터디"))
        #expect(
            try await host.call(.likePost(postId: space.postId, likeStatus: true), as: App.LikeStatusDTO.self)
                .likeStatus)
        let reserved = try await host.call(
            .fetchMyLikedPosts(next: nil, limit: 20, category: .space), as: App.PostListDTO.self)
        #expect(reserved.data.map(\.postId) == [space.postId])

        let meetPhoto = try await host.upload([("image_\(UUID().uuidString).jpg", "image/jpeg", TestImages.png)])
        let meetTitle = TestEnvironment.unique("보드게임 모임")
        let pricePerPerson = (12000 * 3) / 4
        let meet = try await host.call(
            .createPost(
                title: meetTitle, price: pricePerPerson, content: "같이 보드게임 해요", category: .meet,
                files: meetPhoto.files,
                additionalFields: [
                    "value1": "4", "value2": "0", "value3": "202512201400, 3",
                    "value4": "\(space.postId)|\(space.title)|서울 강남구 역삼동|\(space.files[0])",
                    "value5": "2025-12-01T05:00:00.000Z", "value6": "2025-12-19T05:00:00.000Z",
                ],
                latitude: space.geolocation.latitude, longitude: space.geolocation.longitude),
            as: App.PostDTO.self)
        #expect(meet.category == "meet" && meet.price == pricePerPerson && meet.value3 == "202512201400, 3")
        #expect(meet.geolocation.latitude == space.geolocation.latitude)

        // MeetEditStore.validatePayment after the iamport sheet (the host pays the price per person).
        let hostPaid = try await App.pay(amount: pricePerPerson, name: meetTitle)
        let hostReceipt = try await host.call(
            .validatePayment(impUid: hostPaid.impUid, postId: meet.postId), as: App.PaymentHistoryDTO.self)
        #expect(hostReceipt.postId == meet.postId && hostReceipt.buyerId == hostId)
        #expect(hostReceipt.price == pricePerPerson && hostReceipt.merchantUid == hostPaid.merchantUid)

        // A guest: the meet list (20 a page). MeetListStore stops only on a nil cursor: after "0" it asks once
        // more with `next=0` and gets an empty page.
        let guest = try await App.Session.signUp(client)
        let guestId = try await guest.login().userId
        let list = try await App.page(guest, category: .meet, limit: 20, meetList: true)
        #expect(list.ids.contains(meet.postId))
        #expect(Set(list.ids).count == list.ids.count, "a meet shown twice")
        #expect(Array(list.cursors.suffix(2)) == ["0", "0"], "\(list.cursors)")

        // MeetMapStore: nearest first around the centre, then the search field (title, category meet).
        let map = try await guest.call(
            .searchByLocation(
                category: .meet, longitude: longitude, latitude: latitude, maxDistance: 3000, orderBy: "distance",
                sortBy: "asc"),
            as: App.PostListDTO.self)
        #expect(map.data.first?.postId == meet.postId && map.data.first?.distance != nil)
        let found = try await guest.call(.searchByTitle(title: meetTitle, category: .meet), as: App.PostListDTO.self)
        #expect(found.data.map(\.postId) == [meet.postId])

        // MeetDetailStore: detail, like through LikeManager, pay and validate, detail again.
        let detail = try await guest.call(.fetchPost(postId: meet.postId), as: App.PostDTO.self)
        #expect(detail.buyers == [hostId] && !detail.likes.contains(guestId))
        #expect(
            try await guest.call(.likePost(postId: meet.postId, likeStatus: true), as: App.LikeStatusDTO.self)
                .likeStatus)
        let guestPaid = try await App.pay(amount: detail.price ?? 0, name: detail.title)
        let receipt = try await guest.call(
            .validatePayment(impUid: guestPaid.impUid, postId: meet.postId), as: App.PaymentHistoryDTO.self)
        #expect(receipt.buyerId == guestId && receipt.productName == meetTitle)
        let joined = try await guest.call(.fetchPost(postId: meet.postId), as: App.PostDTO.self)
        #expect(Set(joined.buyers) == [hostId, guestId] && joined.likes == [guestId])

        // ProfileStore tabs: liked meets, reserved spaces (none), payments.
        let likedMeets = try await guest.call(
            .fetchMyLikedPosts(next: nil, limit: 20, category: .meet), as: App.PostListDTO.self)
        #expect(likedMeets.data.map(\.postId) == [meet.postId])
        let noSpaces = try await guest.call(
            .fetchMyLikedPosts(next: nil, limit: 20, category: .space), as: App.PostListDTO.self)
        #expect(noSpaces.data.isEmpty)
        let payments = try await guest.call(.fetchMyPayments, as: App.PaymentHistoryListDTO.self)
        #expect(payments.data.map(\.postId) == [meet.postId])
        let hostMeets = try await guest.call(
            .fetchUserPosts(userId: hostId, next: nil, limit: 20, category: .meet), as: App.PostListDTO.self)
        #expect(hostMeets.data.map(\.postId) == [meet.postId])

        // MeetDetailStore.deleteMeet (the Void request), then the detail is gone.
        let removed = try await host.send(.deletePost(postId: meet.postId), decodable: false)
        #expect(removed.status == 200, "\(removed.text)")
        let gone = try await guest.send(.fetchPost(postId: meet.postId))
        #expect(gone.status == 410, "\(gone.status) \(gone.text)")
    }

    /// AuthInterceptor: an expired access token is renewed (`RefreshToken` header, both tokens stored) and the
    /// request resent; once the refresh token has expired too, the refresh fails, the keychain is cleared, the
    /// store's retry resends without `Authorization` (401) and the app is logged out; login again; withdraw.
    @Test func expiredTokensRefreshForceLogoutAndWithdraw() async throws {
        let client = try TwinClient()
        let member = try await App.Session.signUp(client)
        let login = try await member.login()

        try await member.letAccessTokenExpire()
        let oldRefresh = await member.refreshToken
        let profile = try await member.call(.fetchMyProfile, as: App.ProfileDTO.self)
        #expect(profile.userId == login.userId)
        #expect(await member.refreshes == 1)
        #expect(await member.refreshToken != oldRefresh, "G2 rotates the refresh token; the app stores it")
        // The next call uses the stored tokens without a refresh.
        _ = try await member.call(.fetchPosts(next: nil, limit: 20, category: .feed), as: App.PostListDTO.self)
        #expect(await member.refreshes == 1)

        // The feed composer with an expired token: the upload's 419 is refreshed and the multipart form resent.
        try await member.letAccessTokenExpire()
        let info = App.feedFileInfo(TestImages.png, index: 0)
        let uploaded = try await member.upload([(info.fileName, info.mimeType, TestImages.png)])
        #expect(await member.refreshes == 2)
        let post = try await member.call(
            .createPost(
                title: "", price: nil, content: "토큰이 만료된 뒤의 피드", category: .feed, files: uploaded.files,
                additionalFields: nil, latitude: nil, longitude: nil),
            as: App.PostDTO.self)
        #expect(post.files == uploaded.files)
        // A Void request (CommentStore.deleteComment's kind) is refreshed by the interceptor as well.
        let comment = try await member.call(
            .createComment(postId: post.postId, content: "지울 댓글"), as: App.CommentDTO.self)
        try await member.letAccessTokenExpire()
        let deleted = try await member.send(
            .deleteComment(postId: post.postId, commentId: comment.commentId), decodable: false)
        #expect(deleted.status == 200, "\(deleted.status) \(deleted.text)")
        #expect(await member.refreshes == 3)

        // The refresh token expires: 419, refresh 418, keychain cleared, resend without a token (401), logout.
        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        let failed = try await member.send(.fetchMyProfile)
        #expect(failed.status == 401, "\(failed.status) \(failed.text)")
        #expect(await member.forcedLogouts == 1)
        #expect(await member.accessToken == nil)
        let message = try client.decode(App.ServerResponseDTO.self, from: failed)
        #expect(!message.message.contains("리프레시"), "NetworkErrorMapper: a 401 with a message is badRequest")

        // LoginView: a wrong password is a 401 with a message (NetworkErrorMapper: badRequest, shown as is).
        let wrong = try await member.send(.login(email: member.email, password: "wrong1234"))
        #expect(wrong.status == 401, "\(wrong.status) \(wrong.text)")
        #expect(try !client.decode(App.ServerResponseDTO.self, from: wrong).message.contains("리프레시"))

        // LoginView again, then ProfileStore.withdrawUser (`GET /v1/users/withdraw`, decoded as UserDTO).
        try await member.login()
        let withdrawn = try await member.call(.withdraw, as: App.UserDTO.self)
        #expect(withdrawn.userId == login.userId)
        await member.clearTokens()
        let again = try await member.send(.login(email: member.email, password: member.password))
        #expect(again.status == 401, "\(again.status) \(again.text)")
    }

    /// The chat tab: a guest opens a room with a meet's host from the meet detail (`POST /v1/chats`, the same room
    /// again), the empty room is not listed, the screen loads (no query), the guest sends a text and then a photo and
    /// a video (`POST /v1/chats/{room_id}/files`: `image_0.png`, `video_1.mp4`; a message with content "" and the
    /// paths); the host's list shows the room with its `lastChat`, the host's screen loads both messages and the
    /// media at `/v1{path}`; the host answers twice over REST and the guest's Socket.IO socket (`SeSACKey`,
    /// `ProductId`, `Authorization`, polling then WebSocket) receives both `chat` events.
    @Test func aGuestChatsWithTheMeetHostAndReceivesTheAnswersOnTheSocket() async throws {
        let client = try TwinClient()
        let (host, hostId, meetId) = try await App.hostMeet(client)
        let guest = try await App.Session.signUp(client)
        let guestId = try await guest.login().userId

        // MeetDetailStore: the detail; "채팅" (shown to everyone but the creator) → createChatRoom with the creator,
        // decoded as ChatRoomDTO and mapped by ChatMapper (dates with fractional seconds).
        let meet = try await guest.call(.fetchPost(postId: meetId), as: App.PostDTO.self)
        #expect(meet.creator.userId == hostId)
        let opened = try await guest.call(
            .createOrFetchRoom(opponentUserId: meet.creator.userId), as: App.ChatRoomDTO.self)
        #expect(Set(opened.participants.map(\.userId)) == [guestId, hostId] && opened.lastChat == nil)
        #expect(App.mapperDate(opened.createdAt) != nil && App.mapperDate(opened.updatedAt) != nil)
        let room = App.chatRoom(opened)
        #expect(room.participants.first { $0.userId != guestId }?.nickname == meet.creator.nick)
        let again = try await guest.call(.createOrFetchRoom(opponentUserId: hostId), as: App.ChatRoomDTO.self)
        #expect(again.roomId == room.id)

        // The host's chat tab (ChatListStore.loadChatRooms): the room is there but not shown without a message.
        let emptyList = try await host.call(.fetchRoomList, as: App.ChatRoomListDTO.self)
        #expect(emptyList.data.map(\.roomId).contains(room.id))
        #expect(
            !App.filteredChatRooms(App.convertToChatRooms(emptyList.data), currentUserId: hostId).contains {
                $0.id == room.id
            })

        // ChatDetailView.onAppear: nothing stored yet → `GET /v1/chats/{room_id}` without a query.
        var guestRealm = App.ChatRealm()
        var guestScreen = App.ChatDetail(roomId: room.id, currentUserId: guestId)
        try await guestScreen.loadMessages(guest, realm: &guestRealm)
        #expect(guestScreen.messages.isEmpty)

        // ChatInputBar: a text (JSON `{content}`, no `files` key).
        let question = "안녕하세요! 모임 장소에 주차 가능한가요?"
        let asked = try await guestScreen.sendMessage(guest, content: question, files: nil, realm: &guestRealm)
        #expect(asked.sender.userId == guestId && asked.content == question && asked.files.isEmpty)
        #expect(asked.roomId == room.id)

        // The photos picker: a photo and a video in one upload (NetworkService.uploadMedia), then a message with
        // content "" and the paths (ChatDetailView.sendSelectedMedia).
        #expect(App.chatFileInfo(TestImages.png, index: 0) == ("image_0.png", "image/png"))
        #expect(App.chatFileInfo(TestImages.mp4, index: 1) == ("video_1.mp4", "video/mp4"))
        let paths = try await App.uploadChatFiles(guest, roomId: room.id, files: [TestImages.png, TestImages.mp4])
        #expect(paths.count == 2 && paths.allSatisfy { $0.hasPrefix("/") }, "\(paths)")
        #expect(paths.last?.hasSuffix(".mp4") == true, "ChatBubble tells a video by `.mp4` in the path: \(paths)")
        let media = try await guestScreen.sendMessage(guest, content: "", files: paths, realm: &guestRealm)
        #expect(media.content == "" && media.files == paths)
        #expect(guestScreen.messages.map(\.id) == [asked.id, media.id])

        // The host's chat tab: the room, its `lastChat` (the media message) and the other participant.
        let list = try await host.call(.fetchRoomList, as: App.ChatRoomListDTO.self)
        let rooms = App.filteredChatRooms(App.convertToChatRooms(list.data), currentUserId: hostId)
        let row = try #require(rooms.first { $0.id == room.id })
        #expect(row.lastChat?.id == media.id && row.lastChat?.files == paths && row.lastChat?.content == "")
        let lastChat = try #require(list.data.first { $0.roomId == room.id }?.lastChat)
        #expect(App.parseDate(lastChat.createdAt) == App.mapperDate(lastChat.createdAt), "\(lastChat.createdAt)")
        #expect(row.lastChat?.createdAt == media.createdAt)
        #expect(row.participants.first { $0.userId != hostId }?.userId == guestId)

        // The host's ChatDetailView: both messages, oldest first, dated to the millisecond; the photo (KFImage) and
        // the video (VideoPlayerView) at `{host}/v1{path}`.
        var hostRealm = App.ChatRealm()
        var hostScreen = App.ChatDetail(roomId: room.id, currentUserId: hostId)
        try await hostScreen.loadMessages(host, realm: &hostRealm)
        #expect(hostScreen.messages.map(\.id) == [asked.id, media.id])
        #expect(hostScreen.messages.map(\.createdAt) == [asked.createdAt, media.createdAt])
        let photo = try await host.send(.downloadFile(filePath: paths[0]), decodable: false)
        #expect(photo.status == 200 && photo.body == TestImages.png, "\(photo.status)")
        let video = try await host.send(.downloadFile(filePath: paths[1]), decodable: false)
        #expect(video.status == 200 && video.body == TestImages.mp4, "\(video.status)")

        // The guest's screen has its socket (openWebSocket at onAppear); the host answers twice from the input bar.
        let hostToken = try #require(await host.accessToken)
        let replies = ["네, 건물 뒤편에 주차할 수 있어요", "토요일에 봬요!"]
        let answers = try replies.map {
            try App.Router.sendMessage(roomId: room.id, content: $0, files: nil).request(
                token: hostToken, key: client.apiKey)
        }
        #expect(answers.allSatisfy { $0.path == "/v1/chats/\(room.id)" })
        let outcome = try await SocketIOTestClient.run(
            App.socketConfig(
                room: room.id, headers: App.socketHeaders(token: await guest.accessToken, key: client.apiKey),
                answers: answers))
        #expect(outcome.refusal == nil, "\(String(describing: outcome.refusal))")
        #expect(outcome.transport == "websocket")
        #expect(outcome.posted.count == 2)
        let delivered = outcome.eventData.compactMap(App.socketMessage)
        #expect(delivered.count == outcome.eventData.count, "the app could not read a `chat` event")
        #expect(delivered.map(\.id) == outcome.posted, "each answer once, in order")
        #expect(delivered.map(\.content) == replies)
        #expect(delivered.allSatisfy { $0.roomId == room.id && $0.sender.userId == hostId && $0.files.isEmpty })
        for data in outcome.eventData {
            let raw = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["createdAt"])
            let createdAt = try #require(raw as? String)
            #expect(App.mapperDate(createdAt) != nil, "an ISO-8601 date with milliseconds: \(createdAt)")
            withKnownIssue(
                "WeeMo defect: Services/ChatSocketIOManager.swift's handleReceivedMessage parses createdAt with a plain ISO8601DateFormatter(), which refuses milliseconds, so every socket message is dated when it arrives (and saved in Realm so)"
            ) {
                #expect(ISO8601DateFormatter().date(from: createdAt) != nil, "\(createdAt)")
            }
        }
        for message in delivered { guestScreen.receive(message, realm: &guestRealm) }
        #expect(guestScreen.messages.map(\.content) == [question, ""] + replies)
    }

    /// A photo from the chat's photos picker is sent as the library stores it (`ChatDetailView.loadSelectedMedia`:
    /// `loadTransferable(type: Data.self)`): an iPhone photo is HEIF, which `detectMediaType` does not know, so the
    /// app names it `video_0.mp4` / `video/mp4`. Media recognises it by its bytes and stores a `.heic` file without its
    /// EXIF and XMP (decision 0044); `ChatBubbleView` tells videos by `.mp4`/`.mov` in the path, so the host's screen
    /// shows it as a photo.
    @Test func aLibraryPhotoInHEIFIsSentAsAPhotoWithoutItsLocation() async throws {
        let client = try TwinClient()
        let (host, hostId, meetId) = try await App.hostMeet(client)
        let (guest, guestId, room) = try await App.guestOpensARoom(client, meetId: meetId)
        #expect(App.chatFileInfo(TestImages.heic, index: 0) == ("video_0.mp4", "video/mp4"), "the app's label")
        let (path, photo) = try await App.sendFileToTheHost(
            TestImages.heic, guest: guest, guestId: guestId, host: host, hostId: hostId, room: room)
        #expect(path.hasPrefix("/") && path.hasSuffix(".heic"), "\(path)")
        #expect(!path.lowercased().contains(".mp4") && !path.lowercased().contains(".mov"), "ChatBubbleView: a photo")
        #expect(photo.status == 200, "\(photo.status)")
        #expect(photo.header("Content-Type") == "image/heic")
        #expect(photo.body.count == TestImages.heic.count, "the same file, its metadata items zeroed in place")
        for secret in ["GPSLEAKPHONE", "GPSLatitude"] {
            #expect(Data(photo.body).range(of: Data(secret.utf8)) == nil, "\(secret) is gone")
        }
    }

    /// A voice memo (`VoiceRecorderView`: `AVAudioRecorder`, AAC, `recording_<uuid>.m4a`) is sent like a picked file
    /// (`ChatDetailStore.sendVoiceRecording` → `uploadChatFiles`, then a message with content ""): `detectMediaType`
    /// does not know M4A, so it is `video_0.mp4` / `video/mp4`. Media recognises MPEG-4 audio and keeps the `.mp4`
    /// that makes `ChatMediaItem` offer its player (`VideoPlayerView` writes the downloaded bytes to a temporary `.mp4`
    /// for AVPlayer, which plays audio-only files); the file is served as `audio/mp4`, its AAC frames as recorded and
    /// its location zeroed (decision 0045).
    @Test func aVoiceMemoIsSentAndPlaysInTheChatsPlayerWithoutItsLocation() async throws {
        let client = try TwinClient()
        let (host, hostId, meetId) = try await App.hostMeet(client)
        let (guest, guestId, room) = try await App.guestOpensARoom(client, meetId: meetId)
        #expect(App.chatFileInfo(TestImages.m4a, index: 0) == ("video_0.mp4", "video/mp4"), "the app's label")
        let (path, played) = try await App.sendFileToTheHost(
            TestImages.m4a, guest: guest, guestId: guestId, host: host, hostId: hostId, room: room)
        #expect(path.hasPrefix("/") && path.lowercased().contains(".mp4"), "ChatBubbleView: its player: \(path)")
        #expect(played.status == 200, "\(played.status)")
        #expect(played.header("Content-Type") == "audio/mp4")
        let position = 1514  // the fixture's `loci` box: its version and flags end here, its position follows
        #expect(played.body.count == TestImages.m4a.count)
        #expect(Array(played.body.prefix(position)) == Array(TestImages.m4a.prefix(position)), "the recording as sent")
        #expect(played.body.dropFirst(position).allSatisfy { $0 == 0 }, "no position")
    }

    /// Videos larger than a photo may be: the meet editor compresses a video to at most 10 MB
    /// (`MediaItem.fromVideo(_:maxSizeInMB: 10)`, `VideoEditorView`'s "파일 크기가 10MB를 초과합니다"), and the chat sends
    /// a picked video as the library holds it. A video over the photos' 5 MB goes through the gateway's upload routes, to media and to
    /// the room's upload, and comes back whole (decision 0046: 10 MB per video, 5 MB per photo). 5.5 MB: over the
    /// photos' limit, and little to parse in a debug build.
    @Test func aVideoOverThePhotoLimitIsStoredForAMeetAndForAChat() async throws {
        let client = try TwinClient()
        let (host, _, meetId) = try await App.hostMeet(client)
        let length = 5_500_000
        var video = Array(TestImages.mp4.prefix(24))  // its `ftyp` box
        video += [UInt8(truncatingIfNeeded: (length + 8) >> 24), UInt8(truncatingIfNeeded: (length + 8) >> 16)]
        video += [UInt8(truncatingIfNeeded: (length + 8) >> 8), UInt8(truncatingIfNeeded: length + 8)]
        video += Array("mdat".utf8) + [UInt8](repeating: 0x42, count: length)

        let info = App.feedFileInfo(video, index: 0)
        #expect(info == ("file_0.mp4", "video/mp4"))
        let uploaded = try await host.upload([(info.fileName, info.mimeType, video)])
        let path = try #require(uploaded.files.first)
        #expect(path.hasPrefix("/") && path.hasSuffix(".mp4"), "\(uploaded.files)")
        let played = try await host.send(.downloadFile(filePath: path), decodable: false)
        #expect(played.status == 200 && played.body.count == video.count, "\(played.status)")
        #expect(played.header("Content-Type") == "video/mp4")

        let (guest, _, room) = try await App.guestOpensARoom(client, meetId: meetId)
        let paths = try await App.uploadChatFiles(guest, roomId: room.id, files: [video])
        let chatPath = try #require(paths.first)
        #expect(chatPath.hasSuffix(".mp4"), "\(paths)")
        let chatVideo = try await host.send(.downloadFile(filePath: chatPath), decodable: false)
        #expect(chatVideo.status == 200 && Array(chatVideo.body) == video, "\(chatVideo.status)")
    }

    /// Coming back to a room: the guest's Realm has its own messages; the host wrote while the guest was away. The
    /// screen shows the Realm at once and catches up with `before` (the newest stored date in whole seconds, which
    /// G2 answers with what came after it too); pull to refresh shows the catch-up; "이전 메시지 더보기" sends
    /// `before` with the oldest date. A socket reconnecting with the token of when the room was opened is refused
    /// once that token has expired; a REST call refreshes it, and opening the room again connects.
    @Test func reopeningARoomCatchesUpWithBeforeAndAStaleSocketTokenIsRefused() async throws {
        let client = try TwinClient()
        let (host, hostId, meetId) = try await App.hostMeet(client)
        let (guest, guestId, room) = try await App.guestOpensARoom(client, meetId: meetId)

        var guestRealm = App.ChatRealm()
        var first = App.ChatDetail(roomId: room.id, currentUserId: guestId)
        try await first.loadMessages(guest, realm: &guestRealm)
        var sent: [App.ChatMessage] = []
        for text in ["참가 신청했어요", "보드게임 처음인데 괜찮을까요?", "준비물 있나요?"] {
            sent.append(try await first.sendMessage(guest, content: text, files: nil, realm: &guestRealm))
        }
        #expect(first.messages.map(\.id) == sent.map(\.id))

        // The guest leaves the room (closeWebSocket keeps the socket but the screen's store is gone: nothing more
        // is saved); the host answers twice from its own chat screen.
        var hostRealm = App.ChatRealm()
        var hostScreen = App.ChatDetail(roomId: room.id, currentUserId: hostId)
        try await hostScreen.loadMessages(host, realm: &hostRealm)
        var answered: [App.ChatMessage] = []
        for text in ["처음이셔도 괜찮아요", "준비물은 없어요!"] {
            answered.append(try await hostScreen.sendMessage(host, content: text, files: nil, realm: &hostRealm))
        }

        // The chat tab lists the room with the host's last answer.
        let list = try await guest.call(.fetchRoomList, as: App.ChatRoomListDTO.self)
        let row = try #require(
            App.filteredChatRooms(App.convertToChatRooms(list.data), currentUserId: guestId).first { $0.id == room.id })
        #expect(row.lastChat?.id == answered.last?.id && row.lastChat?.sender.userId == hostId)

        // The room again: the Realm's three at once; the catch-up (`before` = the newest stored, whole seconds)
        // brings the host's two, saved only.
        var second = App.ChatDetail(roomId: room.id, currentUserId: guestId)
        let caughtUp = try await second.loadMessages(guest, realm: &guestRealm)
        #expect(second.messages.map(\.id) == sent.map(\.id))
        #expect(caughtUp.map(\.chatId) == answered.map(\.id), "the messages after the newest stored one")
        withKnownIssue(
            "WeeMo defect: Services/ChatService.swift's fetchMessages returns the Realm's messages before its background sync; what the sync saves is not shown until the room is loaded again (Feature/Chat/Intent/ChatDetailStore.swift)"
        ) {
            #expect(second.messages.count == 5)
        }
        // Pull to refresh (retryLoadMessages): all five, oldest first; the next catch-up has nothing new.
        let nothingNew = try await second.loadMessages(guest, realm: &guestRealm)
        #expect(nothingNew.isEmpty)
        #expect(second.messages.map(\.id) == (sent + answered).map(\.id))

        // The top of the list: nothing older in the Realm, so `before` = the oldest message's date (whole seconds);
        // G2 answers the page before it and everything after, all of it shown already.
        try await second.loadMoreMessages(guest, beforeMessageId: sent[0].id, realm: &guestRealm)
        #expect(second.messages.map(\.id) == (sent + answered).map(\.id), "nothing shown twice")
        withKnownIssue(
            "WeeMo defect: Services/ChatService.swift sends `before` both to catch up (syncLatestMessagesFromServer, the newest date) and to page back (loadMoreMessages, the oldest); a server that answers the catch-up keeps answering the page back with messages already shown, so ChatDetailStore.loadMoreMessages never sets hasMoreMessages to false"
        ) {
            let hasMoreMessages = second.hasMoreMessages
            #expect(!hasMoreMessages)
        }

        // The phone sleeps, the access token expires; SocketIO-Client-Swift reconnects with the `extraHeaders` of
        // openWebSocket (the token of then): the namespace is refused, and the app only prints the error.
        try await guest.letAccessTokenExpire()
        let stale = try await SocketIOTestClient.run(
            App.socketConfig(
                room: room.id, headers: App.socketHeaders(token: await guest.accessToken, key: client.apiKey)))
        #expect(stale.refusal?.message == "액세스 토큰이 만료되었습니다.", "\(String(describing: stale.refusal))")
        withKnownIssue(
            "WeeMo defect: Services/ChatSocketIOManager.swift sends the keychain's access token once, in the SocketManager's extraHeaders; reconnects present it after it expired, and the refusal is only printed (no refresh, no new manager)"
        ) {
            #expect(stale.refusal == nil)
        }

        // A REST call refreshes the token (AuthInterceptor); opening the room again builds a new SocketManager with
        // it, and the host's next answer arrives.
        _ = try await guest.call(.fetchRoomList, as: App.ChatRoomListDTO.self)
        #expect(await guest.refreshes == 1)
        let hostToken = try #require(await host.accessToken)
        let answer = try App.Router.sendMessage(roomId: room.id, content: "그럼 토요일에 봬요", files: nil).request(
            token: hostToken, key: client.apiKey)
        let fresh = try await SocketIOTestClient.run(
            App.socketConfig(
                room: room.id, headers: App.socketHeaders(token: await guest.accessToken, key: client.apiKey),
                answers: [answer]))
        #expect(fresh.refusal == nil, "\(String(describing: fresh.refusal))")
        let delivered = fresh.eventData.compactMap(App.socketMessage)
        #expect(delivered.map(\.id) == fresh.posted && delivered.first?.content == "그럼 토요일에 봬요")
        for message in delivered { second.receive(message, realm: &guestRealm) }
        #expect(second.messages.count == 6 && second.messages.last?.sender.userId == hostId)
    }
}
