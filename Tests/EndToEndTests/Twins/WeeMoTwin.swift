import Foundation
import SNSTestSupport
import Testing

/// WeeMo (위모, github.com/TeamWeeMo/WeeMo, late 2025, G2): meet-ups in rented spaces. Operators list spaces
/// (category `space`), hosts create meets (category `meet`, `value1…6`, a price per person and the space's place)
/// and pay for them through the iamport SDK, guests find meets in a list or on a map, like them and pay to join;
/// a Pinterest-like feed (category `feed`, title `""`) carries photos and comments; a profile shows one's meets,
/// feeds, liked meets, reserved spaces and payments; the profile screen also withdraws.
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
/// Mirrored files (under `WeeMo/WeeMo/`): `Network/Core/APIRouter.swift`, `Network/Core/NetworkService.swift`,
/// `Network/Core/NetworkErrorMapper.swift`, `Network/Core/NetworkError.swift`, `Network/Endpoints/AuthRouter.swift`,
/// `UserRouter.swift`, `PostRouter.swift`, `CommentRouter.swift`, `PaymentRouter.swift`, `FileRouter.swift`,
/// `Network/DTOs/*.swift`, `Feature/Auth/AuthInterceptor.swift`, `Feature/Auth/AuthService.swift`,
/// `Common/Managers/TokenManager.swift`, `Common/Managers/LikeManager.swift`, the stores under `Feature/`
/// (Sign, Login, Profile, Feed, Meet, Space) and `Feature/Meet/Detail/MeetPaymentView.swift`.
///
/// Departures, all forced by files the app does not commit (`WeeMo/WeeMo/Secret/` is git-ignored):
/// `NetworkConstants.baseURL`/`apiVersion` are taken as the gateway and `/v1`; `NetworkConstants.productId` is the
/// test stack's registered product id; `HTTPHeaderKey` is taken as `SeSACKey`, `ProductId`, `Content-Type`,
/// `Authorization`, `RefreshToken`; `PostCategory`'s raw values are taken as `feed`, `meet` and `space`. The
/// photo pickers' JPEGs are replaced by the PNG test image (sent under the name and type the app would declare for
/// its JPEG, except in the feed composer, whose sniffing names PNG bytes `file_0.png`/`image/png`). iamport's UI is
/// the PortOne sandbox, and `merchant_uid` (`weemo_<milliseconds>`) gets a unique tail. `NetworkService`'s 1 s
/// retry delay is not waited for.
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

        var method: String {
            switch self {
            case .emailValidation, .join, .login, .uploadFiles, .createPost, .likePost, .createComment,
                .validatePayment:
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

        /// `session.upload(multipartFormData:with: PostRouter.uploadFiles)`: the router's headers, with Alamofire's
        /// multipart `Content-Type` in place of the JSON one.
        static func upload(
            _ files: [(fileName: String, mimeType: String, bytes: [UInt8])], token: String?, key: String
        ) throws -> TwinRequest {
            var form = TwinMultipart()
            for file in files {
                form.file("files", filename: file.fileName, mimeType: file.mimeType, bytes: file.bytes)
            }
            let route = Router.uploadFiles
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

        func upload(_ files: [(fileName: String, mimeType: String, bytes: [UInt8])]) async throws -> FileDTO {
            let reply = try await send(decodable: false) { try Router.upload(files, token: $0, key: $1) }
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
}
