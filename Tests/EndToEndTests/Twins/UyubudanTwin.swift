import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// Uyubudan (우유부단, github.com/olraedev/Uyubudan, G1, April–May 2024): "help me decide" polls. A post is a vote
/// (`title`, `content`, the two options in `content1`/`content2`, the category in `content3`, `product_id`
/// `uyubudan`); the left option is `like`, the right one `like-2`; readers comment, follow, and tip the author a
/// fixed 100 won through the iamport SDK and `payments/validation` `{imp_uid, post_id, productName, price: 100}`.
///
/// How the app talks (mirrored below):
/// - Alamofire routers (`TargetType`): `baseURL` + `/v1` + path, query items appended in the router's order;
///   headers `SesacKey` and (almost everywhere) `Content-Type: application/json`, GETs and DELETEs included;
///   `Authorization` is added only by `NetworkInterceptor.adapt` (bare token, read fresh from `UserDefaults`).
/// - `NetworkManager.fetchToServer`: interceptor, `validate(200..<300)`, decode; the retrier refreshes once on a
///   419 (`GET /v1/auth/refresh` with the expired token and `Refresh`), stores the token and retries; a failed
///   refresh shows the login screen.
/// - `NetworkManager.fetchToServerNoModel` (payment validation, post delete, comment delete): interceptor but no
///   validation, so a 419 is never retried; success is **exactly status 200**.
/// - `NetworkManager.multipartToServer` (image upload, profile edit): interceptor, no validation, decode.
enum UyubudanTwin {
    /// `Environment.defaultImage` (Environment.swift is git-ignored; its value is unknown). The models fall back to
    /// it when `profileImage` is absent.
    static let defaultImage = "Environment.defaultImage"

    // MARK: - Errors (Uyubudan: Network/HTTPError.swift)

    enum HTTPError: Int, Error, Sendable {
        case checkRequiredValue = 400
        case checkAccount = 401
        case forbidden = 403
        case cantUseEmail = 409
        case expiredRefreshToken = 418
        case expiredAccessToken = 419
        case wrongSesacKey = 420
        case overRequest = 429
        case invalidURL = 444
        case serverError = 500
    }

    /// What the app's `Single<Result<M, HTTPError>>` would carry on failure (`error` is nil where the app's
    /// `HTTPError(rawValue:)` has no case, and its single then never fires).
    struct Failure: Error, CustomStringConvertible {
        let status: Int
        let body: String
        var error: HTTPError? { HTTPError(rawValue: status) }
        var description: String { "Uyubudan failure \(status) \(body.prefix(300))" }
    }

    // MARK: - Decodable models

    /// Uyubudan: Network/User/Model/MessageModel.swift
    struct MessageModel: Decodable, Sendable {
        let message: String
    }

    /// Uyubudan: Network/User/Model/JoinModel.swift (also the withdraw answer, Profile/ProfileViewModel.swift)
    struct JoinModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
    }

    /// Uyubudan: Network/User/Model/LoginModel.swift (no `email`)
    struct LoginModel: Decodable, Sendable {
        let userID: String
        let nickName: String
        let profileImage: String
        let accessToken: String
        let refreshToken: String

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case nickName = "nick"
            case profileImage
            case accessToken
            case refreshToken
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            userID = try container.decode(String.self, forKey: .userID)
            nickName = try container.decode(String.self, forKey: .nickName)
            profileImage =
                try container.decodeIfPresent(String.self, forKey: .profileImage) ?? UyubudanTwin.defaultImage
            accessToken = try container.decode(String.self, forKey: .accessToken)
            refreshToken = try container.decode(String.self, forKey: .refreshToken)
        }
    }

    /// Uyubudan: Network/User/Model/AuthRefreshModel.swift
    struct AuthRefreshModel: Decodable, Sendable {
        let accessToken: String
    }

    /// Uyubudan: Network/Follow/FollowModel/FollowModel.swift (follow and unfollow answers)
    struct FollowModel: Decodable, Sendable {
        let nickname: String
        let opponent: String
        let status: Bool

        enum CodingKeys: String, CodingKey {
            case nickname = "nick"
            case opponent = "opponent_nick"
            case status = "following_status"
        }
    }

    /// Uyubudan: Network/Like/LikeModel/LikeModel.swift
    struct LikeModel: Decodable, Sendable {
        let status: Bool

        enum CodingKeys: String, CodingKey {
            case status = "like_status"
        }
    }

    /// Uyubudan: Network/Payment/Model/HistoryModel.swift (declared with `PaymentRouter.history`; no screen calls it)
    struct HistoryModel: Decodable, Sendable {
        let data: [HistoryData]
    }

    /// Uyubudan: Network/Payment/Model/HistoryModel.swift — every key required.
    struct HistoryData: Decodable, Sendable {
        let paymentID: String
        let buyerID: String
        let postID: String
        let merchantUID: String
        let productName: String
        let price: Int
        let paidAt: String

        enum CodingKeys: String, CodingKey {
            case paymentID = "payment_id"
            case buyerID = "buyer_id"
            case postID = "post_id"
            case merchantUID = "merchant_uid"
            case productName
            case price
            case paidAt
        }
    }

    /// Uyubudan: Network/Post/Model/ReadAllModel.swift
    struct ReadAllModel: Decodable, Sendable {
        let data: [PostData]
        let nextCursor: String

        enum CodingKeys: String, CodingKey {
            case data
            case nextCursor = "next_cursor"
        }
    }

    /// Uyubudan: Network/Post/Model/ReadAllModel.swift (`PostData`) — synthesized: **every key required**, including
    /// `title`, `content`, `content1…3`, `createdAt` and `files`.
    struct PostData: Decodable, Sendable {
        let postID: String
        let productID: String
        let title: String
        let content: String
        let content1: String
        let content2: String
        let content3: String
        let createdAt: String
        let creator: Creator
        var likes: [String]
        var likes2: [String]
        let files: [String]
        let hashTags: [String]
        let comments: [Comment]

        enum CodingKeys: String, CodingKey {
            case postID = "post_id"
            case productID = "product_id"
            case title
            case content
            case content1
            case content2
            case content3
            case createdAt
            case creator
            case likes
            case likes2
            case files
            case hashTags
            case comments
        }
    }

    /// Uyubudan: Network/Post/Model/ReadAllModel.swift (`Comment`)
    struct Comment: Decodable, Sendable {
        let commentID: String
        let content: String
        let createdAt: String
        let creator: Creator

        enum CodingKeys: String, CodingKey {
            case commentID = "comment_id"
            case content
            case createdAt
            case creator
        }
    }

    /// Uyubudan: Network/Post/Model/ReadAllModel.swift (`Creator`)
    struct Creator: Decodable, Sendable {
        let userID: String
        let nick: String
        let profileImage: String

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case nick
            case profileImage
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            userID = try container.decode(String.self, forKey: .userID)
            nick = try container.decode(String.self, forKey: .nick)
            profileImage =
                try container.decodeIfPresent(String.self, forKey: .profileImage) ?? UyubudanTwin.defaultImage
        }
    }

    /// Uyubudan: Network/Post/Model/UploadImageModel.swift
    struct UploadImageModel: Decodable, Sendable {
        let files: [String]
    }

    /// Uyubudan: Network/Profile/Model/ProfileModel.swift — `posts`, `followers`, `following` required.
    struct ProfileModel: Decodable, Sendable {
        let userID: String
        let nickname: String
        let profileImage: String
        let posts: [String]
        let followers: [FollowInfo]
        let following: [FollowInfo]

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case nickname = "nick"
            case profileImage
            case posts
            case followers
            case following
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            userID = try container.decode(String.self, forKey: .userID)
            nickname = try container.decode(String.self, forKey: .nickname)
            profileImage =
                try container.decodeIfPresent(String.self, forKey: .profileImage) ?? UyubudanTwin.defaultImage
            posts = try container.decode([String].self, forKey: .posts)
            followers = try container.decode([FollowInfo].self, forKey: .followers)
            following = try container.decode([FollowInfo].self, forKey: .following)
        }
    }

    /// Uyubudan: Network/Profile/Model/ProfileModel.swift (`FollowInfo`)
    struct FollowInfo: Decodable, Sendable {
        let userID: String
        let nickname: String
        let profileImage: String

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case nickname = "nick"
            case profileImage
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            userID = try container.decode(String.self, forKey: .userID)
            nickname = try container.decode(String.self, forKey: .nickname)
            profileImage =
                try container.decodeIfPresent(String.self, forKey: .profileImage) ?? UyubudanTwin.defaultImage
        }
    }

    // MARK: - Encodable queries

    /// Uyubudan: Network/User/Query/EmailValidationQuery.swift
    struct EmailValidationQuery: Encodable, Sendable {
        let email: String
    }

    /// Uyubudan: Network/User/Query/JoinQuery.swift
    struct JoinQuery: Encodable, Sendable {
        let email: String
        let password: String
        let nick: String
    }

    /// Uyubudan: Network/User/Query/LoginQuery.swift
    struct LoginQuery: Encodable, Sendable {
        let email: String
        let password: String
    }

    /// Uyubudan: Network/Post/Query/WriteQuery.swift — `files: nil` (no photo) is left out by the synthesized
    /// `encodeIfPresent`.
    struct WriteQuery: Encodable, Sendable {
        let title: String
        let content: String
        let content1: String
        let content2: String
        let content3: String
        let productID: String
        let files: [String]?

        enum CodingKeys: String, CodingKey {
            case title
            case content
            case content1
            case content2
            case content3
            case productID = "product_id"
            case files
        }
    }

    /// Uyubudan: Network/Like/LikeQuery/LikeQuery.swift
    struct LikeQuery: Encodable, Sendable {
        var status: Bool

        enum CodingKeys: String, CodingKey {
            case status = "like_status"
        }
    }

    /// Uyubudan: Network/Comments/CommentsQuery/CommentsWriteQuery.swift
    struct CommentsWriteQuery: Encodable, Sendable {
        let content: String
    }

    /// Uyubudan: Network/Payment/Query/PaymentValidationQuery.swift — encoded with `.useDefaultKeys`.
    struct PaymentValidationQuery: Encodable, Sendable {
        let impUID: String
        let postID: String
        let productName: String
        let price: Int

        enum CodingKeys: String, CodingKey {
            case impUID = "imp_uid"
            case postID = "post_id"
            case productName
            case price
        }
    }

    // MARK: - Routers (Uyubudan: Network/TargetType.swift and Network/*/…Router.swift)

    /// `TargetType.asURLRequest()`: `baseURL/v1/path` (+ query items), the router's headers, its body. No
    /// `Authorization`: `NetworkInterceptor.adapt` adds it.
    protocol Route: Sendable {
        func request(sesacKey: String) throws -> TwinRequest
    }

    /// `JSONEncoder()` with `.convertToSnakeCase` (every body but the payment one).
    static func snakeCaseBody<Body: Encodable>(_ body: Body) throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(body)
    }

    static let jsonContentType = ("Content-Type", "application/json")

    /// Uyubudan: Network/User/UserRouter.swift — JSON content type on every route, GETs included.
    enum UserRouter: Route {
        case join(JoinQuery)
        case emailValidation(EmailValidationQuery)
        case login(LoginQuery)
        case authRefresh
        case withdraw

        func request(sesacKey: String) throws -> TwinRequest {
            let headers = [UyubudanTwin.jsonContentType, ("SesacKey", sesacKey)]
            switch self {
            case .join(let query):
                return TwinRequest(
                    "POST", "/v1/users/join", headers: headers, body: try UyubudanTwin.snakeCaseBody(query))
            case .emailValidation(let query):
                return TwinRequest(
                    "POST", "/v1/validation/email", headers: headers, body: try UyubudanTwin.snakeCaseBody(query))
            case .login(let query):
                return TwinRequest(
                    "POST", "/v1/users/login", headers: headers, body: try UyubudanTwin.snakeCaseBody(query))
            case .authRefresh: return TwinRequest("GET", "/v1/auth/refresh", headers: headers)
            case .withdraw: return TwinRequest("GET", "/v1/users/withdraw", headers: headers)
            }
        }
    }

    /// Uyubudan: Network/Post/PostRouter.swift — lists send `product_id=uyubudan&next=<cursor>`, no `limit`.
    enum PostRouter: Route {
        case uploadImage
        case write(WriteQuery)
        case readAll(nextCursor: String)
        case readSpecific(postID: String)
        case delete(postID: String)
        case readSpecificUser(userID: String, nextCursor: String)

        func request(sesacKey: String) throws -> TwinRequest {
            let key = ("SesacKey", sesacKey)
            switch self {
            case .uploadImage:
                // Alamofire's upload replaces this Content-Type with the one carrying the boundary.
                return TwinRequest("POST", "/v1/posts/files", headers: [("Content-Type", "multipart/form-data"), key])
            case .write(let query):
                return TwinRequest(
                    "POST", "/v1/posts", headers: [UyubudanTwin.jsonContentType, key],
                    body: try UyubudanTwin.snakeCaseBody(query))
            case .readAll(let nextCursor):
                return TwinRequest(
                    "GET", "/v1/posts",
                    query: TwinQuery.urlComponents([("product_id", "uyubudan"), ("next", nextCursor)]),
                    headers: [UyubudanTwin.jsonContentType, key])
            case .readSpecific(let postID):
                return TwinRequest("GET", "/v1/posts/\(postID)", headers: [UyubudanTwin.jsonContentType, key])
            case .delete(let postID):
                return TwinRequest("DELETE", "/v1/posts/\(postID)", headers: [UyubudanTwin.jsonContentType, key])
            case .readSpecificUser(let userID, let nextCursor):
                return TwinRequest(
                    "GET", "/v1/posts/users/\(userID)",
                    query: TwinQuery.urlComponents([("product_id", "uyubudan"), ("next", nextCursor)]),
                    headers: [UyubudanTwin.jsonContentType, key])
            }
        }
    }

    /// Uyubudan: Network/Like/LikeRouter.swift — `likes/me` and `likes-2/me` without any query.
    enum LikeRouter: Route {
        case like(postID: String, LikeQuery)
        case likeMe
        case like2(postID: String, LikeQuery)
        case like2Me

        func request(sesacKey: String) throws -> TwinRequest {
            let headers = [("SesacKey", sesacKey), UyubudanTwin.jsonContentType]
            switch self {
            case .like(let postID, let query):
                return TwinRequest(
                    "POST", "/v1/posts/\(postID)/like", headers: headers, body: try UyubudanTwin.snakeCaseBody(query))
            case .likeMe: return TwinRequest("GET", "/v1/posts/likes/me", headers: headers)
            case .like2(let postID, let query):
                return TwinRequest(
                    "POST", "/v1/posts/\(postID)/like-2", headers: headers, body: try UyubudanTwin.snakeCaseBody(query))
            case .like2Me: return TwinRequest("GET", "/v1/posts/likes-2/me", headers: headers)
            }
        }
    }

    /// Uyubudan: Network/Comments/CommentsRouter.swift
    enum CommentsRouter: Route {
        case write(postID: String, CommentsWriteQuery)
        case delete(postID: String, commentID: String)

        func request(sesacKey: String) throws -> TwinRequest {
            let headers = [UyubudanTwin.jsonContentType, ("SesacKey", sesacKey)]
            switch self {
            case .write(let postID, let query):
                return TwinRequest(
                    "POST", "/v1/posts/\(postID)/comments", headers: headers,
                    body: try UyubudanTwin.snakeCaseBody(query))
            case .delete(let postID, let commentID):
                return TwinRequest("DELETE", "/v1/posts/\(postID)/comments/\(commentID)", headers: headers)
            }
        }
    }

    /// Uyubudan: Network/Follow/FollowRouter.swift — only `SesacKey` (no Content-Type), no body.
    enum FollowRouter: Route {
        case follow(userID: String)
        case cancel(userID: String)

        func request(sesacKey: String) throws -> TwinRequest {
            switch self {
            case .follow(let userID):
                return TwinRequest("POST", "/v1/follow/\(userID)", headers: [("SesacKey", sesacKey)])
            case .cancel(let userID):
                return TwinRequest("DELETE", "/v1/follow/\(userID)", headers: [("SesacKey", sesacKey)])
            }
        }
    }

    /// Uyubudan: Network/Profile/ProfileRouter.swift
    enum ProfileRouter: Route {
        case read
        case update
        case readSpecific(userID: String)

        func request(sesacKey: String) throws -> TwinRequest {
            switch self {
            case .read:
                return TwinRequest(
                    "GET", "/v1/users/me/profile", headers: [UyubudanTwin.jsonContentType, ("SesacKey", sesacKey)])
            case .update:
                return TwinRequest(
                    "PUT", "/v1/users/me/profile",
                    headers: [("Content-Type", "multipart/form-data"), ("SesacKey", sesacKey)])
            case .readSpecific(let userID):
                return TwinRequest(
                    "GET", "/v1/users/\(userID)/profile",
                    headers: [UyubudanTwin.jsonContentType, ("SesacKey", sesacKey)])
            }
        }
    }

    /// Uyubudan: Network/Payment/PaymentRouter.swift
    enum PaymentRouter: Route {
        case validation(PaymentValidationQuery)
        case history

        func request(sesacKey: String) throws -> TwinRequest {
            let headers = [("SesacKey", sesacKey), UyubudanTwin.jsonContentType]
            switch self {
            case .validation(let query):
                let encoder = JSONEncoder()
                encoder.keyEncodingStrategy = .useDefaultKeys
                return TwinRequest("POST", "/v1/payments/validation", headers: headers, body: try encoder.encode(query))
            case .history:
                return TwinRequest("GET", "/v1/payments/me", headers: headers)
            }
        }
    }

    // MARK: - Helpers the app has

    /// Manager/ISODateFormatManager.swift: `ISO8601DateFormatter` with `[.withInternetDateTime,
    /// .withFractionalSeconds]`; an unreadable date silently becomes "now".
    static func parsesAsAppDate(_ string: String) -> Bool {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: string) != nil
    }

    // MARK: - One installed app (UserDefaultsManager + NetworkManager + NetworkInterceptor)

    actor Session {
        let client: TwinClient
        let email: String
        let password: String
        /// The nick typed at sign-up (2…9 characters, Join/Nickname/NicknameViewModel.swift).
        let joinedNick: String
        /// `UserDefaultsManager`: `userID`, `accessToken`, `refreshToken`, `profileImage`.
        private(set) var userID = ""
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        private(set) var profileImage = UyubudanTwin.defaultImage
        private(set) var nick = ""
        /// What the interceptor did.
        private(set) var refreshes = 0
        private(set) var loginScreens = 0

        init(client: TwinClient, email: String, password: String, nick: String) {
            self.client = client
            self.email = email
            self.password = password
            self.joinedNick = nick
        }

        /// The join flow (e-mail screen: validation; password screen: 4…14 characters; nickname screen: 2…9
        /// characters, then join), then the login screen.
        static func signUp(_ client: TwinClient, sourceLocation: SourceLocation = #_sourceLocation) async throws
            -> Session
        {
            let nick = "u" + UUID().uuidString.prefix(8).lowercased()
            let session = Session(client: client, email: "\(nick)@example.com", password: "uyu12345", nick: nick)
            let check = try await session.fetch(
                UserRouter.emailValidation(EmailValidationQuery(email: session.email)), as: MessageModel.self)
            #expect(!check.message.isEmpty, sourceLocation: sourceLocation)
            let joined = try await session.fetch(
                UserRouter.join(JoinQuery(email: session.email, password: session.password, nick: nick)),
                as: JoinModel.self)
            #expect(joined.nick == nick && joined.email == session.email, sourceLocation: sourceLocation)
            try await session.logIn()
            return session
        }

        /// User/Login/LoginViewModel.swift: login, then `configureUserDefaults`.
        @discardableResult
        func logIn() async throws -> LoginModel {
            let model = try await fetch(
                UserRouter.login(LoginQuery(email: email, password: password)), as: LoginModel.self)
            userID = model.userID
            accessToken = model.accessToken
            refreshToken = model.refreshToken
            profileImage = model.profileImage
            nick = model.nickName
            return model
        }

        /// Profile/ProfileViewController.swift `logoutButtonClicked`: `UserDefaultsManager.removeAll()`.
        func logOut() {
            userID = ""
            accessToken = ""
            refreshToken = ""
            profileImage = UyubudanTwin.defaultImage
        }

        /// `NetworkManager.fetchToServer`: interceptor, `validate(statusCode: 200..<300)`, `responseDecodable`.
        func fetch<M: Decodable & Sendable>(_ route: some Route, as model: M.Type) async throws -> M {
            var retryCount = 0
            while true {
                let reply = try await client.send(adapt(try route.request(sesacKey: client.apiKey)))
                if (200..<300).contains(reply.status) {
                    // A body that does not decode goes to the retrier too, which only acts on 419.
                    return try client.decode(model, from: reply)
                }
                if try await shouldRetry(status: reply.status, retryCount: retryCount) {
                    retryCount += 1
                    continue
                }
                throw Failure(status: reply.status, body: reply.text)
            }
        }

        /// `NetworkManager.fetchToServerNoModel`: interceptor, no validation, `responseString`; the app's success is
        /// `statusCode == 200` exactly. Nothing fails on the Alamofire side, so the retrier never runs (a 419 is
        /// returned as it is).
        func fetchNoModel(_ route: some Route) async throws -> Int {
            let reply = try await client.send(adapt(try route.request(sesacKey: client.apiKey)))
            return reply.status
        }

        /// `NetworkManager.multipartToServer`: the `body` text parts first, then every image of `datas` under its
        /// key as `uyubudan.png`, `image/png`; interceptor, no validation, `responseDecodable`.
        func multipart<M: Decodable & Sendable>(
            _ route: some Route, datas: [(String, [[UInt8]])], body: [(String, String)],
            as model: M.Type
        ) async throws -> M {
            var form = TwinMultipart()
            for (key, value) in body { form.text(key, value) }
            for (key, images) in datas {
                for image in images { form.file(key, filename: "uyubudan.png", mimeType: "image/png", bytes: image) }
            }
            var retryCount = 0
            while true {
                var request = adapt(try route.request(sesacKey: client.apiKey))
                request.headers.removeAll { $0.0.lowercased() == "content-type" }
                request.headers.append(("Content-Type", form.contentType))
                request.body = form.encoded()
                let reply = try await client.send(request)
                if let decoded = try? client.decode(model, from: reply) { return decoded }
                if try await shouldRetry(status: reply.status, retryCount: retryCount) {
                    retryCount += 1
                    continue
                }
                if (200..<300).contains(reply.status) { return try client.decode(model, from: reply) }
                throw Failure(status: reply.status, body: reply.text)
            }
        }

        /// Extensions/Extension+UIImageView.swift: Kingfisher GET `baseURL + "/v1/\(url)"` with `SesacKey` and
        /// `Authorization`.
        func image(_ url: String) async throws -> GatewayClient.Reply {
            try await client.send(
                TwinRequest(
                    "GET", "/v1/\(url)", headers: [("SesacKey", client.apiKey), ("Authorization", accessToken)]))
        }

        /// Profile edit stored the new image (ProfileEdit/ProfileEditViewModel.swift).
        func stored(profileImage: String, nick: String) {
            self.profileImage = profileImage
            self.nick = nick
        }

        /// `NetworkInterceptor.adapt`: `Authorization` = `UserDefaultsManager.accessToken`.
        private func adapt(_ request: TwinRequest) -> TwinRequest {
            var request = request
            request.headers.removeAll { $0.0 == "Authorization" }
            request.headers.append(("Authorization", accessToken))
            return request
        }

        /// `NetworkInterceptor.retry`: only a 419 on the first attempt; `fetchRefreshTokenToServer` (UserRouter
        /// `.authRefresh` plus `Authorization` and `Refresh`, no interceptor, no validation, `AuthRefreshModel`):
        /// success stores the token and retries; any failure shows the login screen and gives up.
        private func shouldRetry(status: Int, retryCount: Int) async throws -> Bool {
            guard retryCount < 1, status == 419 else { return false }
            var request = try UserRouter.authRefresh.request(sesacKey: client.apiKey)
            request.headers.append(("Authorization", accessToken))
            request.headers.append(("Refresh", refreshToken))
            let reply = try await client.send(request)
            if let model = try? client.decode(AuthRefreshModel.self, from: reply) {
                accessToken = model.accessToken
                refreshes += 1
                return true
            }
            loginScreens += 1
            return false
        }

        // MARK: Time passing (test-side only)

        /// The access token expires: replaced by a token of the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userID)
        }

        /// The refresh token's 14 days pass (its session's expiry moved into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
        }
    }

    /// Home/HomeViewModel.swift: `readAll(nextCursor: "")`, then `appendPostData` while `nextCursor != "0"` (the
    /// twin stops once every id in `ids` was seen).
    static func home(_ session: Session, until ids: Set<String>) async throws -> [PostData] {
        var posts: [PostData] = []
        var next = ""
        for _ in 0..<1_000 {
            let page = try await session.fetch(PostRouter.readAll(nextCursor: next), as: ReadAllModel.self)
            posts += page.data
            next = page.nextCursor
            if next == "0" || ids.isSubset(of: Set(posts.map(\.postID))) { break }
        }
        return posts
    }
}

/// The app's journeys through the gateway, in the order its screens make the calls.
@Suite("Uyubudan twin")
struct UyubudanTwinTests {
    /// Write a poll (with and without a photo), vote on both sides, comment and delete it, follow, open the
    /// author's profile, tip 100 won twice, see the liked tab, unfollow, delete a poll, rename with a new picture.
    @Test func writeVoteCommentFollowTipDeleteRename() async throws {
        let client = try TwinClient()
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let author = try await UyubudanTwin.Session.signUp(client)
        let voter = try await UyubudanTwin.Session.signUp(client)
        let authorId = await author.userID, voterId = await voter.userID
        let authorNick = author.joinedNick, voterNick = voter.joinedNick

        // The tab bar's first screen: the feed and my profile.
        _ = try await UyubudanTwin.home(author, until: [])
        let authorProfile = try await author.fetch(UyubudanTwin.ProfileRouter.read, as: UyubudanTwin.ProfileModel.self)
        #expect(authorProfile.userID == authorId)
        #expect(authorProfile.profileImage == UyubudanTwin.defaultImage, "no picture yet: the app's default")

        // Write: category → title/content → the two options (+ a photo): upload, then the post.
        let upload = try await author.multipart(
            UyubudanTwin.PostRouter.uploadImage, datas: [("files", [TestImages.png])], body: [],
            as: UyubudanTwin.UploadImageModel.self)
        #expect(upload.files.count == 1)
        let lunch = try await author.fetch(
            UyubudanTwin.PostRouter.write(
                UyubudanTwin.WriteQuery(
                    title: "점심 뭐 먹지?", content: "회사 앞 중국집 #점심", content1: "짜장면", content2: "짬뽕", content3: "메뉴",
                    productID: "uyubudan", files: upload.files)), as: UyubudanTwin.PostData.self)
        #expect(lunch.productID == "uyubudan")
        #expect(
            lunch.title == "점심 뭐 먹지?" && lunch.content1 == "짜장면" && lunch.content2 == "짬뽕" && lunch.content3 == "메뉴")
        #expect(lunch.files == upload.files)
        #expect(lunch.hashTags == ["점심"])
        #expect(lunch.creator.userID == authorId && lunch.creator.nick == authorNick)
        #expect(lunch.creator.profileImage == UyubudanTwin.defaultImage)
        #expect(UyubudanTwin.parsesAsAppDate(lunch.createdAt), "createdAt \(lunch.createdAt)")
        let trip = try await author.fetch(
            UyubudanTwin.PostRouter.write(
                UyubudanTwin.WriteQuery(
                    title: "여름 휴가지", content: "어디가 좋을까요", content1: "제주", content2: "부산", content3: "여행",
                    productID: "uyubudan", files: nil)), as: UyubudanTwin.PostData.self)
        #expect(trip.files.isEmpty, "a poll without a photo still carries files: []")

        // The voter's feed shows both; the photo loads.
        let feed = try await UyubudanTwin.home(voter, until: [lunch.postID, trip.postID])
        let card = try #require(feed.first { $0.postID == lunch.postID })
        #expect(feed.contains { $0.postID == trip.postID })
        #expect(card.likes.isEmpty && card.likes2.isEmpty)
        #expect(try await voter.image(card.files[0]).body == TestImages.png)

        // Vote left (HomeViewModel.leftButtonClicked): like-2 off, then like on.
        #expect(
            try await voter.fetch(
                UyubudanTwin.LikeRouter.like2(postID: lunch.postID, UyubudanTwin.LikeQuery(status: false)),
                as: UyubudanTwin.LikeModel.self
            ).status == false)
        #expect(
            try await voter.fetch(
                UyubudanTwin.LikeRouter.like(postID: lunch.postID, UyubudanTwin.LikeQuery(status: true)),
                as: UyubudanTwin.LikeModel.self
            ).status == true)
        var read = try await voter.fetch(
            UyubudanTwin.PostRouter.readSpecific(postID: lunch.postID), as: UyubudanTwin.PostData.self)
        #expect(read.likes == [voterId] && read.likes2.isEmpty)
        // Change to right (rightButtonClicked): like off, then like-2 on.
        #expect(
            try await voter.fetch(
                UyubudanTwin.LikeRouter.like(postID: lunch.postID, UyubudanTwin.LikeQuery(status: false)),
                as: UyubudanTwin.LikeModel.self
            ).status == false)
        #expect(
            try await voter.fetch(
                UyubudanTwin.LikeRouter.like2(postID: lunch.postID, UyubudanTwin.LikeQuery(status: true)),
                as: UyubudanTwin.LikeModel.self
            ).status == true)
        read = try await voter.fetch(
            UyubudanTwin.PostRouter.readSpecific(postID: lunch.postID), as: UyubudanTwin.PostData.self)
        #expect(read.likes.isEmpty && read.likes2 == [voterId])

        // Comments sheet: write, reload, delete (exactly 200), reload.
        let comment = try await voter.fetch(
            UyubudanTwin.CommentsRouter.write(postID: lunch.postID, UyubudanTwin.CommentsWriteQuery(content: "짬뽕이죠")),
            as: UyubudanTwin.Comment.self)
        #expect(comment.content == "짬뽕이죠" && comment.creator.userID == voterId)
        #expect(UyubudanTwin.parsesAsAppDate(comment.createdAt), "createdAt \(comment.createdAt)")
        read = try await voter.fetch(
            UyubudanTwin.PostRouter.readSpecific(postID: lunch.postID), as: UyubudanTwin.PostData.self)
        #expect(read.comments.map(\.commentID) == [comment.commentID])
        #expect(
            try await voter.fetchNoModel(
                UyubudanTwin.CommentsRouter.delete(postID: lunch.postID, commentID: comment.commentID)) == 200)
        read = try await voter.fetch(
            UyubudanTwin.PostRouter.readSpecific(postID: lunch.postID), as: UyubudanTwin.PostData.self)
        #expect(read.comments.isEmpty)

        // Follow from the card, then the feed's profile read shows it.
        let follow = try await voter.fetch(
            UyubudanTwin.FollowRouter.follow(userID: authorId), as: UyubudanTwin.FollowModel.self)
        #expect(follow.status)
        #expect(follow.nickname == voterNick && follow.opponent == authorNick)
        let voterProfile = try await voter.fetch(UyubudanTwin.ProfileRouter.read, as: UyubudanTwin.ProfileModel.self)
        #expect(voterProfile.following.map(\.userID) == [authorId])
        #expect(voterProfile.following.first?.profileImage == UyubudanTwin.defaultImage)

        // The author's profile (ProfileState.other): the profile, my own following list, the author's polls.
        let other = try await voter.fetch(
            UyubudanTwin.ProfileRouter.readSpecific(userID: authorId), as: UyubudanTwin.ProfileModel.self)
        #expect(other.followers.map(\.userID) == [voterId])
        #expect(Set(other.posts).isSuperset(of: [lunch.postID, trip.postID]))
        _ = try await voter.fetch(UyubudanTwin.ProfileRouter.read, as: UyubudanTwin.ProfileModel.self)
        let authorPolls = try await voter.fetch(
            UyubudanTwin.PostRouter.readSpecificUser(userID: authorId, nextCursor: ""),
            as: UyubudanTwin.ReadAllModel.self)
        #expect(Set(authorPolls.data.map(\.postID)) == [lunch.postID, trip.postID])
        #expect(authorPolls.nextCursor == "0")

        // Tip (Payment/PaymentViewModel.swift): the iamport SDK charges 100 won (the twin's PortOne sandbox), then
        // validation with the fixed price; the app only checks for status 200. Twice: a reader may tip again.
        var tips: [String] = []
        for _ in 0..<2 {
            let merchantUid =
                "ios_\(client.apiKey)_\(Int(Date().timeIntervalSince1970 * 1000))_\(TestEnvironment.unique(""))"
            let paymentBody: [String: Any] = [
                "merchant_uid": merchantUid, "amount": 100, "name": "\(lunch.creator.nick)님께 후원하기",
                "buyer_name": "김상래",
            ]
            let paid = try await sandbox.send(
                "POST", "/__sandbox/payments",
                json: String(decoding: try JSONSerialization.data(withJSONObject: paymentBody), as: UTF8.self))
            #expect(paid.status == 200, "\(paid.text)")
            let impUid = try #require(try paid.json.string("imp_uid"))
            let status = try await voter.fetchNoModel(
                UyubudanTwin.PaymentRouter.validation(
                    UyubudanTwin.PaymentValidationQuery(
                        impUID: impUid, postID: lunch.postID, productName: "\(voterProfile.nickname)님의 후원", price: 100))
            )
            #expect(status == 200, "후원에 실패하였습니다")
            tips.append(impUid)
        }
        // PaymentRouter.history has no screen; its model is checked anyway.
        let history = try await voter.fetch(UyubudanTwin.PaymentRouter.history, as: UyubudanTwin.HistoryModel.self)
        let tipsOnLunch = history.data.filter { $0.postID == lunch.postID }
        #expect(tipsOnLunch.count == 2)
        #expect(tipsOnLunch.allSatisfy { $0.price == 100 && $0.buyerID == voterId && !$0.productName.isEmpty })
        // The app does not read `buyers`; the server's own record of the tips is checked loosely.
        let voterToken = await voter.accessToken
        let lunchReply = try await client.send(
            TwinRequest(
                "GET", "/v1/posts/\(lunch.postID)",
                headers: [UyubudanTwin.jsonContentType, ("SesacKey", client.apiKey), ("Authorization", voterToken)]))
        #expect(
            (try lunchReply.json["buyers"] as? [String])?.contains(voterId) == true,
            "the tipper is among the post's buyers")

        // My profile's second tab: likes/me and likes-2/me (no query), concatenated.
        let left = try await voter.fetch(UyubudanTwin.LikeRouter.likeMe, as: UyubudanTwin.ReadAllModel.self)
        let right = try await voter.fetch(UyubudanTwin.LikeRouter.like2Me, as: UyubudanTwin.ReadAllModel.self)
        #expect(!left.data.contains { $0.postID == lunch.postID })
        #expect(right.data.map(\.postID) == [lunch.postID])

        // The following sheet, closed after untoggling the author: FollowRouter.cancel through fetchToServer.
        let unfollow = try await voter.fetch(
            UyubudanTwin.FollowRouter.cancel(userID: authorId), as: UyubudanTwin.FollowModel.self)
        #expect(unfollow.status == false)
        #expect(
            try await voter.fetch(UyubudanTwin.ProfileRouter.read, as: UyubudanTwin.ProfileModel.self).following.isEmpty
        )

        // The author deletes the trip poll (exactly 200) and the feed reloads without it.
        #expect(try await author.fetchNoModel(UyubudanTwin.PostRouter.delete(postID: trip.postID)) == 200)
        let reloaded = try await author.fetch(
            UyubudanTwin.PostRouter.readSpecificUser(userID: authorId, nextCursor: ""),
            as: UyubudanTwin.ReadAllModel.self)
        #expect(reloaded.data.map(\.postID) == [lunch.postID])
        do {
            _ = try await author.fetch(
                UyubudanTwin.PostRouter.readSpecific(postID: trip.postID), as: UyubudanTwin.PostData.self)
            Issue.record("a deleted poll was still served")
        } catch let failure as UyubudanTwin.Failure {
            #expect(failure.status == 410, "\(failure)")
        }

        // Profile edit: the nick (2…9 characters) and a picture; the app stores the picture.
        let newNick = "n" + UUID().uuidString.prefix(8).lowercased()
        let edited = try await author.multipart(
            UyubudanTwin.ProfileRouter.update, datas: [("profile", [TestImages.png])], body: [("nick", newNick)],
            as: UyubudanTwin.ProfileModel.self)
        #expect(edited.nickname == newNick)
        #expect(edited.profileImage != UyubudanTwin.defaultImage)
        await author.stored(profileImage: edited.profileImage, nick: edited.nickname)
        #expect(try await author.image(edited.profileImage).body == TestImages.png)
        let renamed = try await author.fetch(
            UyubudanTwin.PostRouter.readSpecific(postID: lunch.postID), as: UyubudanTwin.PostData.self)
        #expect(renamed.creator.nick == newNick, "the new nick right after the rename")
        #expect(renamed.creator.profileImage == edited.profileImage)
    }

    /// The interceptor: a 419 is refreshed and retried once by fetchToServer, never by the no-model calls; a
    /// failed refresh shows the login screen; withdrawal.
    @Test func tokenRefreshRetryLoginScreenAndWithdraw() async throws {
        let client = try TwinClient()
        let user = try await UyubudanTwin.Session.signUp(client)
        let userId = await user.userID

        // A duplicate e-mail: 409 → HTTPError.cantUseEmail, shown as "사용이 불가한 이메일입니다.".
        let twin = UyubudanTwin.Session(client: client, email: user.email, password: "uyu12345", nick: "dup")
        do {
            _ = try await twin.fetch(
                UyubudanTwin.UserRouter.emailValidation(UyubudanTwin.EmailValidationQuery(email: user.email)),
                as: UyubudanTwin.MessageModel.self)
            Issue.record("a taken e-mail was accepted")
        } catch let failure as UyubudanTwin.Failure {
            #expect(failure.error == .cantUseEmail, "\(failure)")
        }

        let poll = try await user.fetch(
            UyubudanTwin.PostRouter.write(
                UyubudanTwin.WriteQuery(
                    title: "이름 짓기", content: "고양이 이름 골라주세요", content1: "나비", content2: "치즈", content3: "작명",
                    productID: "uyubudan", files: nil)), as: UyubudanTwin.PostData.self)

        // fetchToServer: 419 → refresh → retried with the new token.
        try await user.letAccessTokenExpire()
        #expect(
            try await user.fetch(UyubudanTwin.ProfileRouter.read, as: UyubudanTwin.ProfileModel.self).userID == userId)
        #expect(await user.refreshes == 1)

        // fetchToServerNoModel: the 419 comes back as is (HTTPError.expiredAccessToken alert), no refresh; the next
        // model call refreshes, and the delete then succeeds.
        try await user.letAccessTokenExpire()
        #expect(try await user.fetchNoModel(UyubudanTwin.PostRouter.delete(postID: poll.postID)) == 419)
        #expect(await user.refreshes == 1)
        _ = try await user.fetch(UyubudanTwin.ProfileRouter.read, as: UyubudanTwin.ProfileModel.self)
        #expect(await user.refreshes == 2)
        #expect(try await user.fetchNoModel(UyubudanTwin.PostRouter.delete(postID: poll.postID)) == 200)

        // Both tokens expire: the refresh answers 418, the login screen appears; after logging in, all is well.
        try await user.letRefreshTokenExpire()
        try await user.letAccessTokenExpire()
        do {
            _ = try await user.fetch(UyubudanTwin.ProfileRouter.read, as: UyubudanTwin.ProfileModel.self)
            Issue.record("an expired session was accepted")
        } catch let failure as UyubudanTwin.Failure {
            #expect(failure.error == .expiredAccessToken, "\(failure)")
        }
        #expect(await user.loginScreens == 1)
        try await user.logIn()
        #expect(
            try await user.fetch(UyubudanTwin.ProfileRouter.read, as: UyubudanTwin.ProfileModel.self).userID == userId)

        // Withdraw (ProfileViewModel: JoinModel); until the alert's logout, the old token is refused with 401 —
        // which the interceptor leaves alone.
        let gone = try await user.fetch(UyubudanTwin.UserRouter.withdraw, as: UyubudanTwin.JoinModel.self)
        #expect(gone.user_id == userId && gone.email == user.email)
        do {
            _ = try await user.fetch(UyubudanTwin.ProfileRouter.read, as: UyubudanTwin.ProfileModel.self)
            Issue.record("a withdrawn user's token was accepted")
        } catch let failure as UyubudanTwin.Failure {
            #expect(failure.error == .checkAccount, "\(failure)")
        }
        #expect(await user.refreshes == 2)
        await user.logOut()
        // The e-mail is free again for the join flow.
        let again = try await twin.fetch(
            UyubudanTwin.UserRouter.emailValidation(UyubudanTwin.EmailValidationQuery(email: user.email)),
            as: UyubudanTwin.MessageModel.self)
        #expect(!again.message.isEmpty)
    }
}
