import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// BookSNS ("SnapBook", github.com/Minchelin42/BookSNS, G1, April 2024): book reviews (`product_id` `snapBook`)
/// and a used-book market (`snapBook_market`) whose **price lives in `content4`** as text — the app never sends a
/// `price` key on posts. A buyer pays in the iamport SDK for `content4`, then posts `{imp_uid, post_id,
/// productName, price}` to `payments/validation`, marks the book sold with `like-2`, and sees it in the shopping
/// list (`payments/me`).
///
/// How the app talks (mirrored below):
/// - Alamofire, one `TargetType` router per area; the base URL holds `/v1`; query items through
///   `URL.append(queryItems:)` in the router's order (`product_id`, `limit`, `next`); header `SesacKey`; bare token
///   in `Authorization`, read from `UserDefaultsInfo` — a `static let`, so it is frozen at the first read of the
///   process (on a fresh install: `""` until the app is relaunched). The twin plays the app after a relaunch
///   (current tokens), except for the default-profile upload of the very first sign-in, which goes out with the
///   frozen empty token exactly as on a fresh install.
/// - `NetworkManager.APIcall` = `AF.request(…, interceptor: APIRequestInterceptor())` with
///   `validate(statusCode: 200..<420)`: a 4xx below 420 counts as success and is decoded as the model, so every
///   error body ends as a decoding failure, which Alamofire hands to the retrier. The retrier: 401 → give up;
///   anything else → `GET /v1/auth/refresh`, store the new access token — and never call the retrier's completion
///   (the original request is not retried and never finishes); a refresh answering 418 sends the user to the
///   sign-in screen.
/// - `PostNetworkManager` (review upload/create, like) and `NetworkManager.uploadProfile/DeleteAPI` use no
///   interceptor.
enum BookSNSTwin {
    // MARK: - Decodable models (BookSNS: Network/Model/…)

    /// BookSNS: Network/Model/ErrorModel/MessageModel.swift
    struct MessageModel: Decodable, Sendable {
        let message: String
    }

    /// BookSNS: Network/Model/FollowModel/FollowModel.swift — `profileImage` is **required** here, unlike every
    /// other user model of the app (see `BookSNSTwinTests.reviewSearchScrapCommentFollowProfileEditDelete`).
    struct FollowModel: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String
    }

    /// BookSNS: Network/Model/FollowModel/SelectFollowModel.swift
    struct SelectFollowModel: Decodable, Sendable {
        let nick: String
        let opponent_nick: String
        let following_status: Bool
    }

    /// BookSNS: Network/Model/PayModel/PayValidationModel.swift (`PayList`)
    struct PayList: Decodable, Sendable {
        var data: [PayValidationModel]
    }

    /// BookSNS: Network/Model/PayModel/PayValidationModel.swift — every key required, `paidAt` a String read by
    /// `convertUTCtoKST` with `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
    struct PayValidationModel: Decodable, Sendable {
        var payment_id: String
        var buyer_id: String
        var post_id: String
        var merchant_uid: String
        var productName: String
        var price: Int
        var paidAt: String
    }

    /// BookSNS: Network/Model/PostModel/CommentModel.swift (no `createdAt`)
    struct CommentModel: Decodable, Sendable {
        let comment_id: String
        let content: String
        let creator: CreatorModel
    }

    /// BookSNS: Network/Model/PostModel/CreatorModel.swift
    struct CreatorModel: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String

        enum CodingKeys: CodingKey {
            case user_id
            case nick
            case profileImage
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            user_id = try container.decode(String.self, forKey: .user_id)
            nick = try container.decode(String.self, forKey: .nick)
            profileImage = try container.decodeIfPresent(String.self, forKey: .profileImage) ?? ""
        }
    }

    /// BookSNS: Network/Model/PostModel/FileModel.swift
    struct FileModel: Decodable, Sendable {
        let files: [String]
    }

    /// BookSNS: Network/Model/PostModel/LikeModel.swift
    struct LikeModel: Decodable, Sendable {
        let like_status: Bool
    }

    /// BookSNS: Network/Model/PostModel/PostModel.swift (`GetPostModel`)
    struct GetPostModel: Decodable, Sendable {
        let data: [PostModel]
        let next_cursor: String
    }

    /// BookSNS: Network/Model/PostModel/PostModel.swift — no `title`, `price`, `buyers` or `createdAt`; everything
    /// but `post_id` read with `decodeIfPresent` and a default.
    struct PostModel: Decodable, Sendable {
        let post_id: String
        let product_id: String
        let content: String
        let content1: String
        let content2: String
        let content3: String
        let content4: String
        let content5: String
        let creator: CreatorModel?
        let files: [String]
        let likes: [String]
        let likes2: [String]
        let hashTags: [String]
        let comments: [CommentModel]

        enum CodingKeys: CodingKey {
            case post_id
            case product_id
            case content
            case content1
            case content2
            case content3
            case content4
            case content5
            case creator
            case files
            case likes
            case likes2
            case hashTags
            case comments
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            post_id = try container.decode(String.self, forKey: .post_id)
            product_id = try container.decodeIfPresent(String.self, forKey: .product_id) ?? ""
            content = try container.decodeIfPresent(String.self, forKey: .content) ?? ""
            content1 = try container.decodeIfPresent(String.self, forKey: .content1) ?? ""
            content2 = try container.decodeIfPresent(String.self, forKey: .content2) ?? ""
            content3 = try container.decodeIfPresent(String.self, forKey: .content3) ?? ""
            content4 = try container.decodeIfPresent(String.self, forKey: .content4) ?? ""
            content5 = try container.decodeIfPresent(String.self, forKey: .content5) ?? ""
            creator = try container.decodeIfPresent(CreatorModel.self, forKey: .creator) ?? nil
            files = try container.decodeIfPresent([String].self, forKey: .files) ?? []
            likes = try container.decodeIfPresent([String].self, forKey: .likes) ?? []
            likes2 = try container.decodeIfPresent([String].self, forKey: .likes2) ?? []
            hashTags = try container.decodeIfPresent([String].self, forKey: .hashTags) ?? []
            comments = try container.decodeIfPresent([CommentModel].self, forKey: .comments) ?? []
        }
    }

    /// BookSNS: Network/Model/ProfileModel/ProfileModel.swift — used for my profile and for other users' profiles
    /// (`email` then absent → `""`); `followers`/`following`/`posts` required.
    struct ProfileModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
        let profileImage: String
        let followers: [FollowModel]
        let following: [FollowModel]
        let posts: [String]

        enum CodingKeys: CodingKey {
            case user_id
            case email
            case nick
            case profileImage
            case followers
            case following
            case posts
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            user_id = try container.decode(String.self, forKey: .user_id)
            email = try container.decodeIfPresent(String.self, forKey: .email) ?? ""
            nick = try container.decode(String.self, forKey: .nick)
            profileImage = try container.decodeIfPresent(String.self, forKey: .profileImage) ?? ""
            followers = try container.decode([FollowModel].self, forKey: .followers)
            following = try container.decode([FollowModel].self, forKey: .following)
            posts = try container.decode([String].self, forKey: .posts)
        }
    }

    /// BookSNS: Network/Model/SignModel/SignInModel.swift
    struct SignInModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
        let profileImage: String
        let accessToken: String
        let refreshToken: String

        enum CodingKeys: CodingKey {
            case user_id
            case email
            case nick
            case profileImage
            case accessToken
            case refreshToken
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            user_id = try container.decode(String.self, forKey: .user_id)
            email = try container.decode(String.self, forKey: .email)
            nick = try container.decode(String.self, forKey: .nick)
            profileImage = try container.decodeIfPresent(String.self, forKey: .profileImage) ?? ""
            accessToken = try container.decode(String.self, forKey: .accessToken)
            refreshToken = try container.decode(String.self, forKey: .refreshToken)
        }
    }

    /// BookSNS: Network/Model/SignModel/SignUpModel.swift (also the withdraw answer, Sign/WithDraw/WithDrawViewModel.swift)
    struct SignUpModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
    }

    /// BookSNS: Network/Model/SignModel/TokenModel.swift
    struct TokenModel: Decodable, Sendable {
        let accessToken: String
    }

    // MARK: - Encodable queries (BookSNS: Network/Query/…)

    /// BookSNS: Network/Query/CreateCommentQuery.swift
    struct CreateCommentQuery: Encodable, Sendable {
        var content: String
    }

    /// BookSNS: Network/Query/CreatePostQuery.swift — no `title`, no `price`: a review keeps the book in
    /// `content1…4` (title, list price, link, cover URL); a market post keeps the asking price in `content4` and the
    /// cover in `content5`.
    struct CreatePostQuery: Encodable, Sendable {
        var content: String
        var content1: String
        var content2: String
        var content3: String
        var content4: String
        var content5: String
        var files: [String]
        var product_id: String
    }

    /// BookSNS: Network/Query/CreatePostQuery.swift (`LikeQuery`)
    struct LikeQuery: Encodable, Sendable {
        var like_status: Bool
    }

    /// BookSNS: Network/Query/EmailValidationQuery.swift
    struct EmailValidationQuery: Encodable, Sendable {
        let email: String
    }

    /// BookSNS: Network/Query/PayQuery.swift — encoded with a plain `JSONEncoder()`.
    struct PayQuery: Encodable, Sendable {
        var imp_uid: String
        var post_id: String
        var productName: String
        var price: Int
    }

    /// BookSNS: Network/Query/ProfileQuery.swift — sent as multipart (`profile` file, `nick` text), never as JSON.
    struct ProfileQuery: Sendable {
        var nick: String
        var profile: [UInt8]
    }

    /// BookSNS: Network/Query/SignInQuery.swift
    struct SignInQuery: Encodable, Sendable {
        let email: String
        let password: String
    }

    /// BookSNS: Network/Query/SignUpQuery.swift
    struct SignUpQuery: Encodable, Sendable {
        let email: String
        let password: String
        let nick: String
    }

    // MARK: - Routers (BookSNS: Network/Router/…, Protocol/TargetType.swift)

    /// What the routers read from `UserDefaultsInfo` and `APIKey`.
    struct Auth: Sendable {
        let sesacKey: String
        let accessToken: String
        let refreshToken: String
    }

    /// BookSNS: Protocol/TargetType.swift — `asURLRequest()`: base URL (`…/v1`) + query items + path, the router's
    /// header dictionary, its body.
    protocol Route: Sendable {
        func request(_ auth: Auth) throws -> TwinRequest
    }

    /// `JSONEncoder()` with `.convertToSnakeCase`, as every router but the payment one builds it.
    static func snakeCaseBody<Body: Encodable>(_ body: Body) throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(body)
    }

    static let jsonContentType = ("Content-Type", "application/json")

    /// BookSNS: Network/Router/SignRouter.swift (`enum Router`)
    enum Router: Route {
        case signUp(query: SignUpQuery)
        case signIn(query: SignInQuery)
        case emailValidation(query: EmailValidationQuery)
        case withdraw
        case renewToken

        func request(_ auth: Auth) throws -> TwinRequest {
            let key = ("SesacKey", auth.sesacKey)
            switch self {
            case .signUp(let query):
                return TwinRequest(
                    "POST", "/v1/users/join", headers: [BookSNSTwin.jsonContentType, key],
                    body: try BookSNSTwin.snakeCaseBody(query))
            case .signIn(let query):
                return TwinRequest(
                    "POST", "/v1/users/login", headers: [BookSNSTwin.jsonContentType, key],
                    body: try BookSNSTwin.snakeCaseBody(query))
            case .emailValidation(let query):
                return TwinRequest(
                    "POST", "/v1/validation/email", headers: [BookSNSTwin.jsonContentType, key],
                    body: try BookSNSTwin.snakeCaseBody(query))
            case .withdraw:
                return TwinRequest("GET", "/v1/users/withdraw", headers: [("Authorization", auth.accessToken), key])
            case .renewToken:
                return TwinRequest(
                    "GET", "/v1/auth/refresh",
                    headers: [("Authorization", auth.accessToken), key, ("Refresh", auth.refreshToken)])
            }
        }
    }

    /// BookSNS: Network/Router/PostRouter.swift
    enum PostRouter: Route {
        case createPost(query: CreatePostQuery)
        case editPost(id: String, query: CreatePostQuery)
        case uploadImage
        case getPost(next: String)
        case hashTagPost(tag: String, next: String)
        case getThisPost(id: String)
        case deletePost(id: String)
        case like(id: String, query: LikeQuery)
        case like2(id: String, query: LikeQuery)

        func request(_ auth: Auth) throws -> TwinRequest {
            let key = ("SesacKey", auth.sesacKey)
            let token = ("Authorization", auth.accessToken)
            switch self {
            case .createPost(let query):
                return TwinRequest(
                    "POST", "/v1/posts", headers: [token, BookSNSTwin.jsonContentType, key],
                    body: try BookSNSTwin.snakeCaseBody(query))
            case .editPost(let id, let query):
                return TwinRequest(
                    "PUT", "/v1/posts/\(id)", headers: [token, BookSNSTwin.jsonContentType, key],
                    body: try BookSNSTwin.snakeCaseBody(query))
            case .uploadImage:
                // Alamofire's upload replaces this Content-Type with the multipart one carrying the boundary.
                return TwinRequest(
                    "POST", "/v1/posts/files", headers: [key, token, ("Content-Type", "multipart/form-data")])
            case .getPost(let next):
                return TwinRequest(
                    "GET", "/v1/posts",
                    query: TwinQuery.urlComponents([("product_id", "snapBook"), ("limit", "15"), ("next", next)]),
                    headers: [key, token])
            case .hashTagPost(let tag, let next):
                return TwinRequest(
                    "GET", "/v1/posts/hashtags",
                    query: TwinQuery.urlComponents([("hashTag", tag), ("limit", "15"), ("next", next)]),
                    headers: [key, token])
            case .getThisPost(let id):
                return TwinRequest("GET", "/v1/posts/\(id)", headers: [key, token])
            case .deletePost(let id):
                return TwinRequest("DELETE", "/v1/posts/\(id)", headers: [key, token])
            case .like(let id, let query):
                return TwinRequest(
                    "POST", "/v1/posts/\(id)/like", headers: [BookSNSTwin.jsonContentType, key, token],
                    body: try BookSNSTwin.snakeCaseBody(query))
            case .like2(let id, let query):
                return TwinRequest(
                    "POST", "/v1/posts/\(id)/like-2", headers: [BookSNSTwin.jsonContentType, key, token],
                    body: try BookSNSTwin.snakeCaseBody(query))
            }
        }
    }

    /// BookSNS: Network/Router/MarketRouter.swift
    enum MarketRouter: Route {
        case createPost(query: CreatePostQuery)
        case getPost(next: String)
        case payValidation(query: PayQuery)
        case getShoppingList

        func request(_ auth: Auth) throws -> TwinRequest {
            let key = ("SesacKey", auth.sesacKey)
            let token = ("Authorization", auth.accessToken)
            switch self {
            case .createPost(let query):
                return TwinRequest(
                    "POST", "/v1/posts", headers: [token, BookSNSTwin.jsonContentType, key],
                    body: try BookSNSTwin.snakeCaseBody(query))
            case .getPost(let next):
                return TwinRequest(
                    "GET", "/v1/posts",
                    query: TwinQuery.urlComponents([("product_id", "snapBook_market"), ("limit", "15"), ("next", next)]
                    ),
                    headers: [key, token])
            case .payValidation(let query):
                // The only body written with a plain `JSONEncoder()` (no snake-case strategy).
                return TwinRequest(
                    "POST", "/v1/payments/validation", headers: [token, BookSNSTwin.jsonContentType, key],
                    body: try JSONEncoder().encode(query))
            case .getShoppingList:
                return TwinRequest("GET", "/v1/payments/me", headers: [token, BookSNSTwin.jsonContentType, key])
            }
        }
    }

    /// BookSNS: Network/Router/ProfileRouter.swift — `Content-Type: application/json` on its GETs too.
    enum ProfileRouter: Route {
        case myProfile
        case otherProfile(id: String)
        case getScraplist
        case editProfile(query: ProfileQuery)

        func request(_ auth: Auth) throws -> TwinRequest {
            let key = ("SesacKey", auth.sesacKey)
            let token = ("Authorization", auth.accessToken)
            switch self {
            case .myProfile:
                return TwinRequest("GET", "/v1/users/me/profile", headers: [token, BookSNSTwin.jsonContentType, key])
            case .otherProfile(let id):
                return TwinRequest(
                    "GET", "/v1/users/\(id)/profile", headers: [token, BookSNSTwin.jsonContentType, key])
            case .getScraplist:
                // No query items: no `next`, no `limit` (the server's default page).
                return TwinRequest("GET", "/v1/posts/likes/me", headers: [token, BookSNSTwin.jsonContentType, key])
            case .editProfile:
                return TwinRequest(
                    "PUT", "/v1/users/me/profile", headers: [token, ("Content-Type", "multipart/form-data"), key])
            }
        }
    }

    /// BookSNS: Network/Router/FollowRouter.swift — `Content-Type: application/json` and no body, both methods.
    enum FollowRouter: Route {
        case follow(id: String)
        case unfollow(id: String)

        func request(_ auth: Auth) throws -> TwinRequest {
            let headers = [
                ("Authorization", auth.accessToken), BookSNSTwin.jsonContentType, ("SesacKey", auth.sesacKey),
            ]
            switch self {
            case .follow(let id): return TwinRequest("POST", "/v1/follow/\(id)", headers: headers)
            case .unfollow(let id): return TwinRequest("DELETE", "/v1/follow/\(id)", headers: headers)
            }
        }
    }

    /// BookSNS: Network/Router/CommentRouter.swift
    enum CommentRouter: Route {
        case createComment(id: String, query: CreateCommentQuery)
        case deleteComment(id: String, commentID: String)

        func request(_ auth: Auth) throws -> TwinRequest {
            let key = ("SesacKey", auth.sesacKey)
            let token = ("Authorization", auth.accessToken)
            switch self {
            case .createComment(let id, let query):
                return TwinRequest(
                    "POST", "/v1/posts/\(id)/comments", headers: [token, BookSNSTwin.jsonContentType, key],
                    body: try BookSNSTwin.snakeCaseBody(query))
            case .deleteComment(let id, let commentID):
                return TwinRequest("DELETE", "/v1/posts/\(id)/comments/\(commentID)", headers: [token, key])
            }
        }
    }

    // MARK: - Helpers the app has

    /// BookSNS: Main/Market/ShoppingList/ShoppingListViewController.swift (`convertUTCtoKST`)
    static func convertUTCtoKST(utcString: String) -> String? {
        let dateFormatter = DateFormatter()
        dateFormatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        dateFormatter.timeZone = TimeZone(identifier: "UTC")
        guard let utcDate = dateFormatter.date(from: utcString) else { return nil }
        dateFormatter.timeZone = TimeZone(identifier: "Asia/Seoul")
        dateFormatter.dateFormat = "yy/MM/dd"
        return dateFormatter.string(from: utcDate)
    }

    // MARK: - One installed app (UserDefaults + the network managers + APIRequestInterceptor)

    actor Session {
        let client: TwinClient
        let email: String
        let password: String
        /// `UserDefaults` keys `userID`, `nick`, `accessToken`, `refreshToken`, `profileImage`.
        private(set) var userID = ""
        private(set) var nick = ""
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        private(set) var profileImage = ""
        /// What the interceptor did.
        private(set) var refreshAnswers: [Int] = []
        private(set) var signInScreens = 0
        /// The status of the default-profile upload of each sign-in (nil when the account already had an image).
        private(set) var defaultProfileUploads: [Int] = []

        init(client: TwinClient, email: String, password: String) {
            self.client = client
            self.email = email
            self.password = password
        }

        var auth: Auth { Auth(sesacKey: client.apiKey, accessToken: accessToken, refreshToken: refreshToken) }

        /// A fresh install: the sign-up screen (Sign/SignUp/SignUpViewModel.swift: email check, join), then the
        /// sign-in screen (Sign/SignIn/SignInViewModel.swift), whose default-profile upload goes out with the
        /// access token frozen at launch — `""`.
        static func freshInstall(
            _ client: TwinClient, nick: String = TestEnvironment.unique("book"),
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> Session {
            let session = Session(client: client, email: "\(nick)@example.com", password: "password1234")
            let check = try await session.apiCall(
                Router.emailValidation(query: EmailValidationQuery(email: session.email)), as: MessageModel.self)
            #expect(!check.message.contains("불가"), "email check: \(check.message)", sourceLocation: sourceLocation)
            let joined = try await session.apiCall(
                Router.signUp(query: SignUpQuery(email: session.email, password: session.password, nick: nick)),
                as: SignUpModel.self)
            #expect(joined.email == session.email && joined.nick == nick, sourceLocation: sourceLocation)
            _ = try await session.signInScreen(frozenAccessToken: "")
            return session
        }

        /// Sign/SignIn/SignInViewModel.swift: login, store the answer in UserDefaults; an account without a profile
        /// image uploads `defaultProfile` (`NetworkManager.uploadProfile`, no interceptor, `validate(200..<410)`)
        /// with the router's `UserDefaultsInfo.accessToken` — the value frozen when the process started.
        @discardableResult
        func signInScreen(frozenAccessToken: String) async throws -> SignInModel {
            signInScreens += 1
            let model = try await apiCall(
                Router.signIn(query: SignInQuery(email: email, password: password)), as: SignInModel.self)
            userID = model.user_id
            nick = model.nick
            accessToken = model.accessToken
            refreshToken = model.refreshToken
            if model.profileImage.isEmpty {
                let frozen = Auth(sesacKey: client.apiKey, accessToken: frozenAccessToken, refreshToken: refreshToken)
                let reply = try await sendUpload(
                    ProfileRouter.editProfile(query: ProfileQuery(nick: model.nick, profile: TestImages.png)),
                    auth: frozen, form: Self.profileForm(nick: model.nick, image: TestImages.png))
                defaultProfileUploads.append(reply.status)
                if (200..<410).contains(reply.status), let profile = try? client.decode(ProfileModel.self, from: reply)
                {
                    profileImage = profile.profileImage
                }
            } else {
                profileImage = model.profileImage
            }
            return model
        }

        /// `NetworkManager.APIcall`: through `APIRequestInterceptor`, `validate(statusCode: 200..<420)`,
        /// `responseDecodable(of: T.self)`. On failure the interceptor runs (see `retry`) and the call never
        /// completes in the app; the twin throws the decoding failure.
        func apiCall<T: Decodable & Sendable>(_ route: some Route, as type: T.Type) async throws -> T {
            try await apiCallWithReply(route, as: type).model
        }

        func apiCallWithReply<T: Decodable & Sendable>(_ route: some Route, as type: T.Type) async throws -> (
            model: T, reply: GatewayClient.Reply
        ) {
            let reply = try await client.send(adapt(try route.request(auth)))
            if (200..<420).contains(reply.status), let model = try? client.decode(type, from: reply) {
                return (model, reply)
            }
            try await retry(after: reply)
            return (try client.decode(type, from: reply), reply)  // throws the app's decoding failure
        }

        /// `AF.request(urlRequest).validate(statusCode: …).responseDecodable` without interceptor
        /// (`PostNetworkManager.like/getPost/createPost`).
        func plainCall<T: Decodable & Sendable>(
            _ route: some Route, as type: T.Type, valid: Range<Int> = 200..<420,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> T {
            let reply = try await client.send(try route.request(auth))
            #expect(valid.contains(reply.status), "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        /// `NetworkManager.DeleteAPI`: no interceptor, `validate(statusCode: 200..<420)`, `.response` (body unread).
        func deleteAPI(_ route: some Route) async throws -> GatewayClient.Reply {
            try await client.send(try route.request(auth))
        }

        /// The request exactly as the router builds it, for asserting a status the app would not decode.
        func send(_ route: some Route) async throws -> GatewayClient.Reply {
            try await client.send(try route.request(auth))
        }

        /// `PostNetworkManager.uploadImage`: one `files` part per image, all named `sesac.png`, `image/png`;
        /// `validate(statusCode: 200..<410)`, no interceptor.
        func uploadImage(_ images: [[UInt8]], sourceLocation: SourceLocation = #_sourceLocation) async throws
            -> FileModel
        {
            var form = TwinMultipart()
            for image in images { form.file("files", filename: "sesac.png", mimeType: "image/png", bytes: image) }
            let reply = try await sendUpload(PostRouter.uploadImage, auth: auth, form: form)
            #expect((200..<410).contains(reply.status), "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            return try client.decode(FileModel.self, from: reply)
        }

        /// `NetworkManager.uploadProfile` (edit-profile screen): `profile` (`sesac.png`, `image/png`), then `nick`.
        func uploadProfile(_ query: ProfileQuery, sourceLocation: SourceLocation = #_sourceLocation) async throws
            -> ProfileModel
        {
            let reply = try await sendUpload(
                ProfileRouter.editProfile(query: query), auth: auth,
                form: Self.profileForm(nick: query.nick, image: query.profile))
            #expect((200..<410).contains(reply.status), "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            let profile = try client.decode(ProfileModel.self, from: reply)
            // UserProfile/EditProfile/EditProfileViewModel.swift stores both.
            nick = profile.nick
            profileImage = profile.profileImage
            return profile
        }

        /// Enum/MakeUI.swift: Kingfisher GET `baseURL + "/" + path` with `Authorization` and `SesacKey`.
        func image(_ path: String) async throws -> GatewayClient.Reply {
            try await client.send(
                TwinRequest(
                    "GET", "/v1/\(path)", headers: [("Authorization", accessToken), ("SesacKey", client.apiKey)]))
        }

        static func profileForm(nick: String, image: [UInt8]) -> TwinMultipart {
            var form = TwinMultipart()
            form.file("profile", filename: "sesac.png", mimeType: "image/png", bytes: image)
            form.text("nick", nick)
            return form
        }

        private func sendUpload(_ route: some Route, auth: Auth, form: TwinMultipart) async throws
            -> GatewayClient.Reply
        {
            var request = try route.request(auth)
            request.headers.removeAll { $0.0.lowercased() == "content-type" }
            request.headers.append(("Content-Type", form.contentType))
            request.body = form.encoded()
            return try await client.send(request)
        }

        /// `APIRequestInterceptor.adapt`: `Authorization` = `UserDefaultsInfo.accessToken`.
        private func adapt(_ request: TwinRequest) -> TwinRequest {
            var request = request
            request.headers.removeAll { $0.0 == "Authorization" }
            request.headers.append(("Authorization", accessToken))
            return request
        }

        /// `APIRequestInterceptor.retry`: 401 → `.doNotRetry`; otherwise `getToken` (`GET /v1/auth/refresh`,
        /// `validate(200..<420)`, `TokenModel`): success stores the access token; a 418 shows the sign-in screen.
        /// The completion is never called, so the original request is not retried.
        private func retry(after reply: GatewayClient.Reply) async throws {
            guard reply.status != 401 else { return }
            let renewed = try await client.send(Router.renewToken.request(auth))
            refreshAnswers.append(renewed.status)
            if (200..<420).contains(renewed.status), let token = try? client.decode(TokenModel.self, from: renewed) {
                accessToken = token.accessToken
            }
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

    // MARK: - Screens that page

    /// Main/Market/MarketHome/MarketHomeViewModel.swift: pages `MarketRouter.getPost(next:)` while
    /// `next_cursor != "0"` (the twin stops once `postId` is seen).
    static func marketHome(_ session: Session, until postId: String) async throws -> (
        posts: [PostModel], lastCursor: String
    ) {
        var posts: [PostModel] = []
        var next = ""
        for _ in 0..<1_000 {
            let page = try await session.apiCall(MarketRouter.getPost(next: next), as: GetPostModel.self)
            posts += page.data
            next = page.next_cursor
            if next == "0" || posts.contains(where: { $0.post_id == postId }) { break }
        }
        return (posts, next)
    }

    /// Main/Recommand/Home/HomeViewModel.swift: the same with `PostRouter.getPost(next:)` (`product_id=snapBook`).
    static func home(_ session: Session, until postId: String) async throws -> (posts: [PostModel], lastCursor: String)
    {
        var posts: [PostModel] = []
        var next = ""
        for _ in 0..<1_000 {
            let page = try await session.apiCall(PostRouter.getPost(next: next), as: GetPostModel.self)
            posts += page.data
            next = page.next_cursor
            if next == "0" || posts.contains(where: { $0.post_id == postId }) { break }
        }
        return (posts, next)
    }
}

/// The app's journeys through the gateway, in the order its screens make the calls.
@Suite("BookSNS twin")
struct BookSNSTwinTests {
    /// The most important journey: a seller lists a used book with its price in `content4`; another user finds it
    /// in the market, pays that amount in the iamport SDK (the PortOne sandbox), the app validates
    /// `{imp_uid, post_id, productName, price}`, marks the book sold with `like-2`, and the purchase is in the
    /// shopping list; the post names its buyer.
    @Test func listBookPayValidateSoldOutHistory() async throws {
        let client = try TwinClient()
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let seller = try await BookSNSTwin.Session.freshInstall(client)
        let buyer = try await BookSNSTwin.Session.freshInstall(client)
        let sellerId = await seller.userID, buyerId = await buyer.userID

        // Main/Market/MarketPost/MarketPostViewModel.swift: photos, the book picked in the Aladin search
        // (content1 title, content2 list price, content3 link, content5 cover), the asking price typed into content4.
        let photos = try await seller.uploadImage([TestImages.png, TestImages.png])
        #expect(photos.files.count == 2)
        let listingQuery = BookSNSTwin.CreatePostQuery(
            content: "밑줄 없이 깨끗합니다", content1: "데미안", content2: "12000",
            content3: "https://www.aladin.co.kr/shop/wproduct.aspx?ItemId=26512134",
            content4: "8000", content5: "https://image.aladin.co.kr/product/2651/21/cover/8937460440_2.jpg",
            files: photos.files, product_id: "snapBook_market")
        let listing = try await seller.apiCall(
            BookSNSTwin.MarketRouter.createPost(query: listingQuery), as: BookSNSTwin.PostModel.self)
        let bookId = listing.post_id
        #expect(listing.product_id == "snapBook_market")
        #expect(listing.content4 == "8000")
        #expect(listing.content1 == "데미안" && listing.content5 == listingQuery.content5)
        #expect(listing.files == photos.files)
        #expect(listing.creator?.user_id == sellerId)
        #expect(listing.likes2.isEmpty)

        // The buyer's market tab finds it.
        let market = try await BookSNSTwin.marketHome(buyer, until: bookId)
        let card = try #require(market.posts.first { $0.post_id == bookId }, "the listing is in the market list")
        #expect(card.content4 == "8000")
        #expect(try await buyer.image(card.files[0]).body == TestImages.png)

        // Main/Market/MarketSelectPost: my profile, the post, sold out = likes2 not empty.
        _ = try await buyer.apiCall(BookSNSTwin.ProfileRouter.myProfile, as: BookSNSTwin.ProfileModel.self)
        let post = try await buyer.apiCall(
            BookSNSTwin.PostRouter.getThisPost(id: bookId), as: BookSNSTwin.PostModel.self)
        #expect(post.likes2.isEmpty, "not sold out yet")
        let price = Int(post.content4) ?? 0
        #expect(price == 8000)

        // The iamport SDK: pg html5_inicis (INIpayTest), merchant_uid "ios_<SesacKey>_<unix seconds>" (the twin adds
        // milliseconds and a suffix so parallel tests never share one), amount = content4, name = content1.
        let merchantUid =
            "ios_\(client.apiKey)_\(Int(Date().timeIntervalSince1970 * 1000))_\(TestEnvironment.unique(""))"
        let paymentBody: [String: Any] = [
            "merchant_uid": merchantUid, "amount": price, "name": post.content1, "buyer_name": buyerId,
        ]
        let payment = try JSONSerialization.data(withJSONObject: paymentBody)
        let paid = try await sandbox.send("POST", "/__sandbox/payments", json: String(decoding: payment, as: UTF8.self))
        #expect(paid.status == 200, "\(paid.text)")
        let impUid = try #require(try paid.json.string("imp_uid"))

        // MarketSelectPostViewModel.payValidation: {imp_uid, post_id, productName: content1, price: Int(content4)}.
        let validation = try await buyer.apiCall(
            BookSNSTwin.MarketRouter.payValidation(
                query: BookSNSTwin.PayQuery(imp_uid: impUid, post_id: bookId, productName: post.content1, price: price)),
            as: BookSNSTwin.PayValidationModel.self)
        #expect(validation.post_id == bookId)
        #expect(validation.buyer_id == buyerId)
        #expect(validation.price == 8000)
        #expect(validation.productName == "데미안")
        #expect(validation.merchant_uid == merchantUid)
        #expect(BookSNSTwin.convertUTCtoKST(utcString: validation.paidAt) != nil, "paidAt \(validation.paidAt)")
        #expect(await buyer.refreshAnswers.isEmpty, "no call failed, so the interceptor never ran")

        // saleComplete: like-2 on the book, then the post again — sold out.
        let sold = try await buyer.apiCall(
            BookSNSTwin.PostRouter.like2(id: bookId, query: BookSNSTwin.LikeQuery(like_status: true)),
            as: BookSNSTwin.LikeModel.self)
        #expect(sold.like_status)
        let (soldPost, soldReply) = try await buyer.apiCallWithReply(
            BookSNSTwin.PostRouter.getThisPost(id: bookId), as: BookSNSTwin.PostModel.self)
        #expect(soldPost.likes2 == [buyerId], "sold out")
        // The app does not read `buyers`; the server's own record of the sale is checked loosely.
        #expect(try soldReply.json["buyers"] as? [String] == [buyerId])

        // The seller sees it sold.
        let (sellerView, sellerReply) = try await seller.apiCallWithReply(
            BookSNSTwin.PostRouter.getThisPost(id: bookId), as: BookSNSTwin.PostModel.self)
        #expect(!sellerView.likes2.isEmpty)
        #expect(try sellerReply.json["buyers"] as? [String] == [buyerId])

        // Main/Market/ShoppingList: payments/me, newest first; a row opens the post.
        let history = try await buyer.apiCall(BookSNSTwin.MarketRouter.getShoppingList, as: BookSNSTwin.PayList.self)
        let row = try #require(history.data.first)
        #expect(row.post_id == bookId)
        #expect(row.price == 8000)
        #expect(row.productName == "데미안")
        #expect(row.payment_id == validation.payment_id)
        #expect(BookSNSTwin.convertUTCtoKST(utcString: row.paidAt) != nil, "paidAt \(row.paidAt)")
        let opened = try await buyer.apiCall(
            BookSNSTwin.PostRouter.getThisPost(id: row.post_id), as: BookSNSTwin.PostModel.self)
        #expect(opened.content1 == "데미안")
        #expect(
            try await seller.apiCall(BookSNSTwin.MarketRouter.getShoppingList, as: BookSNSTwin.PayList.self).data
                .isEmpty,
            "the seller bought nothing")
    }

    /// A review with cover photos and a hashtag; another reader finds it at home and by hashtag, scraps it,
    /// comments and deletes the comment, follows the writer, opens both profiles; the writer edits and deletes it.
    @Test func reviewSearchScrapCommentFollowProfileEditDelete() async throws {
        let client = try TwinClient()
        let writer = try await BookSNSTwin.Session.freshInstall(client)
        let reader = try await BookSNSTwin.Session.freshInstall(client)
        let writerId = await writer.userID, readerId = await reader.userID

        // On a fresh install the first sign-in's default-profile upload carries the frozen, empty token.
        #expect(await writer.defaultProfileUploads == [401])
        #expect(await reader.defaultProfileUploads == [401])
        #expect(await reader.profileImage.isEmpty)

        // The writer sets a picture and a new nick on the edit-profile screen.
        let newNick = TestEnvironment.unique("작가")
        let edited = try await writer.uploadProfile(BookSNSTwin.ProfileQuery(nick: newNick, profile: TestImages.png))
        #expect(edited.nick == newNick)
        #expect(!edited.profileImage.isEmpty)
        #expect(try await writer.image(edited.profileImage).body == TestImages.png)
        #expect(
            try await writer.apiCall(BookSNSTwin.ProfileRouter.myProfile, as: BookSNSTwin.ProfileModel.self).nick
                == newNick)

        // Main/Recommand/CreatePost: photos, then the review (PostNetworkManager.createPost, no interceptor).
        let tag = TestEnvironment.unique("책")
        let photos = try await writer.uploadImage([TestImages.png, TestImages.png])
        let reviewQuery = BookSNSTwin.CreatePostQuery(
            content: "다시 읽어도 좋은 책 #\(tag)", content1: "데미안", content2: "12000",
            content3: "https://www.aladin.co.kr/shop/wproduct.aspx?ItemId=26512134",
            content4: "https://image.aladin.co.kr/product/2651/21/cover/8937460440_2.jpg", content5: "",
            files: photos.files, product_id: "snapBook")
        let review = try await writer.plainCall(
            BookSNSTwin.PostRouter.createPost(query: reviewQuery), as: BookSNSTwin.PostModel.self)
        let postId = review.post_id
        #expect(review.hashTags == [tag])
        #expect(review.files == photos.files)
        #expect(review.content4 == reviewQuery.content4)
        #expect(review.creator?.nick == newNick, "the new nick right after the rename")
        #expect(review.creator?.profileImage == edited.profileImage)

        // The reader's home finds it; search by hashtag (no product_id) finds exactly it.
        let home = try await BookSNSTwin.home(reader, until: postId)
        #expect(home.posts.contains { $0.post_id == postId })
        let found = try await reader.apiCall(
            BookSNSTwin.PostRouter.hashTagPost(tag: tag, next: ""), as: BookSNSTwin.GetPostModel.self)
        #expect(found.data.map(\.post_id) == [postId])
        #expect(found.next_cursor == "0")
        #expect(try await reader.image(photos.files[0]).body == TestImages.png)

        // Scrap (the bookmark button: PostNetworkManager.like), then the profile's scrap tab (likes/me, no query).
        let scrap = try await reader.plainCall(
            BookSNSTwin.PostRouter.like(id: postId, query: BookSNSTwin.LikeQuery(like_status: true)),
            as: BookSNSTwin.LikeModel.self)
        #expect(scrap.like_status)
        #expect(
            try await reader.apiCall(BookSNSTwin.PostRouter.getThisPost(id: postId), as: BookSNSTwin.PostModel.self)
                .likes == [readerId])
        let scraps = try await reader.apiCall(BookSNSTwin.ProfileRouter.getScraplist, as: BookSNSTwin.GetPostModel.self)
        #expect(scraps.data.map(\.post_id).contains(postId))

        // Comments sheet: write, reload (newest first), delete (DeleteAPI), reload.
        let comment = try await reader.apiCall(
            BookSNSTwin.CommentRouter.createComment(
                id: postId, query: BookSNSTwin.CreateCommentQuery(content: "저도 좋아하는 책이에요")),
            as: BookSNSTwin.CommentModel.self)
        #expect(comment.creator.user_id == readerId)
        #expect(comment.creator.profileImage.isEmpty, "the reader has no picture")
        let withComment = try await reader.apiCall(
            BookSNSTwin.PostRouter.getThisPost(id: postId), as: BookSNSTwin.PostModel.self)
        #expect(withComment.comments.first?.comment_id == comment.comment_id)
        let deleted = try await reader.deleteAPI(
            BookSNSTwin.CommentRouter.deleteComment(id: postId, commentID: comment.comment_id))
        #expect(deleted.status == 200, "\(deleted.text)")
        #expect(
            try await reader.apiCall(BookSNSTwin.PostRouter.getThisPost(id: postId), as: BookSNSTwin.PostModel.self)
                .comments.isEmpty)

        // Follow from the post (SelectPostViewModel: APIcall), then my profile lists whom I follow.
        let follow = try await reader.apiCall(
            BookSNSTwin.FollowRouter.follow(id: writerId), as: BookSNSTwin.SelectFollowModel.self)
        #expect(follow.following_status)
        #expect(follow.nick == (await reader.nick))
        #expect(follow.opponent_nick == newNick)
        let mine = try await reader.apiCall(BookSNSTwin.ProfileRouter.myProfile, as: BookSNSTwin.ProfileModel.self)
        #expect(mine.following.map(\.user_id) == [writerId])
        #expect(mine.following.first?.profileImage == edited.profileImage)
        #expect(mine.email == reader.email)

        // The writer's profile (OtherProfileViewModel) lists the reader among its followers. The reader has no
        // picture, so the original server omitted `profileImage` there, as ours does.
        await withKnownIssue(
            "BookSNS defect: FollowModel.profileImage is a required String (Network/Model/FollowModel/FollowModel.swift) while the app's other user models default it; a follower without a profile picture — every account whose first sign-in ran on a fresh install, where SignInViewModel's default-profile upload goes out with the empty frozen UserDefaultsInfo.accessToken — makes ProfileModel undecodable"
        ) {
            _ = try await reader.apiCall(
                BookSNSTwin.ProfileRouter.otherProfile(id: writerId), as: BookSNSTwin.ProfileModel.self)
        }
        let other = try await reader.send(BookSNSTwin.ProfileRouter.otherProfile(id: writerId))
        #expect(other.status == 200)
        let otherJSON = try other.json
        #expect(otherJSON["email"] == nil, "another user's profile has no email")
        #expect(otherJSON.string("nick") == newNick)
        #expect((otherJSON["followers"] as? [[String: Any]])?.compactMap { $0["user_id"] as? String } == [readerId])
        let writerPosts = otherJSON["posts"] as? [String] ?? []
        #expect(writerPosts.contains(postId))
        // Each cell of the profile grid reads its post and shows files[0].
        for id in writerPosts {
            let cell = try await reader.apiCall(
                BookSNSTwin.PostRouter.getThisPost(id: id), as: BookSNSTwin.PostModel.self)
            #expect(cell.product_id == "snapBook" || cell.product_id == "snapBook_market")
            #expect(!cell.files.isEmpty, "the grid shows files[0]")
        }

        // Unfollow (DeleteAPI), then the following list is empty again.
        let unfollowed = try await reader.deleteAPI(BookSNSTwin.FollowRouter.unfollow(id: writerId))
        #expect(unfollowed.status == 200, "\(unfollowed.text)")
        #expect(
            try await reader.apiCall(BookSNSTwin.ProfileRouter.myProfile, as: BookSNSTwin.ProfileModel.self).following
                .isEmpty)

        // The writer edits the review (the whole CreatePostQuery again, through APIcall) …
        var editQuery = reviewQuery
        editQuery.content = "세 번째 읽었습니다 #\(tag) #고전"
        let editedPost = try await writer.apiCall(
            BookSNSTwin.PostRouter.editPost(id: postId, query: editQuery), as: BookSNSTwin.PostModel.self)
        #expect(editedPost.content == editQuery.content)
        #expect(editedPost.hashTags == [tag, "고전"])
        #expect(editedPost.files == photos.files)

        // … and deletes it (DeleteAPI); it is gone for the reader.
        let removed = try await writer.deleteAPI(BookSNSTwin.PostRouter.deletePost(id: postId))
        #expect(removed.status == 200, "\(removed.text)")
        #expect(try await reader.send(BookSNSTwin.PostRouter.getThisPost(id: postId)).status == 410)
        let after = try await reader.apiCall(
            BookSNSTwin.PostRouter.hashTagPost(tag: tag, next: ""), as: BookSNSTwin.GetPostModel.self)
        #expect(after.data.isEmpty)
        #expect(after.next_cursor == "0")
    }

    /// The sign-up screen's duplicate check, the interceptor (419 → refresh, never retried; 418 → sign-in screen),
    /// and withdrawal.
    @Test func emailCheckTokenRefreshSignInScreenAndWithdraw() async throws {
        let client = try TwinClient()
        let user = try await BookSNSTwin.Session.freshInstall(client)
        let email = user.email

        // SignUpViewModel: the duplicate check decodes the 409 body (validate 200..<420) and looks for "불가".
        let taken = BookSNSTwin.Session(client: client, email: email, password: "password1234")
        let check = try await taken.apiCall(
            BookSNSTwin.Router.emailValidation(query: BookSNSTwin.EmailValidationQuery(email: email)),
            as: BookSNSTwin.MessageModel.self)
        #expect(check.message.contains("불가"), "\(check.message)")

        // The access token expires: the call fails (the 419 body is not the model), the interceptor refreshes and
        // stores the new token, and the call itself is never retried.
        try await user.letAccessTokenExpire()
        do {
            _ = try await user.apiCall(BookSNSTwin.ProfileRouter.myProfile, as: BookSNSTwin.ProfileModel.self)
            Issue.record("an expired token was accepted")
        } catch is TwinDecodingFailure {}
        #expect(await user.refreshAnswers == [200])
        // The next screen (after a relaunch) uses the stored token.
        #expect(
            try await user.apiCall(BookSNSTwin.ProfileRouter.myProfile, as: BookSNSTwin.ProfileModel.self).user_id
                == (await user.userID))

        // A failure other than 401 also runs the refresh, with a token that is still valid: the server says 409
        // and the app ignores it.
        #expect(try await user.send(BookSNSTwin.PostRouter.getThisPost(id: "000000000000000000000000")).status == 410)
        do {
            _ = try await user.apiCall(
                BookSNSTwin.PostRouter.getThisPost(id: "000000000000000000000000"), as: BookSNSTwin.PostModel.self)
            Issue.record("a missing post decoded")
        } catch is TwinDecodingFailure {}
        #expect(await user.refreshAnswers == [200, 409])

        // Both tokens expire: the refresh answers 418 and the app shows the sign-in screen; the user signs in
        // again (the default-profile upload then carries the token frozen at launch: the expired one).
        let expiredLaunchToken: String
        try await user.letRefreshTokenExpire()
        try await user.letAccessTokenExpire()
        expiredLaunchToken = await user.accessToken
        do {
            _ = try await user.apiCall(BookSNSTwin.ProfileRouter.myProfile, as: BookSNSTwin.ProfileModel.self)
            Issue.record("an expired token was accepted")
        } catch is TwinDecodingFailure {}
        #expect(await user.refreshAnswers == [200, 409, 418])
        try await user.signInScreen(frozenAccessToken: expiredLaunchToken)
        #expect(await user.defaultProfileUploads == [401, 419])
        #expect(
            try await user.apiCall(BookSNSTwin.ProfileRouter.myProfile, as: BookSNSTwin.ProfileModel.self).user_id
                == (await user.userID))

        // Withdraw (Sign/WithDraw/WithDrawViewModel.swift decodes SignUpModel); the token is refused at once, and a
        // 401 does not run the refresh.
        let userId = await user.userID
        let gone = try await user.apiCall(BookSNSTwin.Router.withdraw, as: BookSNSTwin.SignUpModel.self)
        #expect(gone.user_id == userId)
        #expect(gone.email == email)
        #expect(try await user.send(BookSNSTwin.ProfileRouter.myProfile).status == 401)
        do {
            _ = try await user.apiCall(BookSNSTwin.ProfileRouter.myProfile, as: BookSNSTwin.ProfileModel.self)
            Issue.record("a withdrawn user's token was accepted")
        } catch is TwinDecodingFailure {}
        #expect(await user.refreshAnswers == [200, 409, 418], "401 → doNotRetry")
    }
}
