import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// BuyOrNot ("살까요? 말까요?", github.com/UngQ/BuyOrNot, G1, April–July 2024): members post one photo of a piece of
/// clothing with its price, in a category kept as a hashtag in `content` (`#Top`, `#Bottom`, `#Shoes`, `#Acc`; the
/// category screen searches the lowercase tag `top`), and others vote "buy" (`like`) or "don't" (`like-2`), comment,
/// follow, and buy the item with the iamport SDK (the price is the digits of `content1`, restated in the validation
/// body). Right after sign-up the app logs in and loads `GET /v1/users/me/profile` for the tab bar.
///
/// The twin rebuilds BuyOrNot's network layer: one `Router` (`TargetType`) that writes `/v1` into every path, sets
/// the whole header dictionary itself (`SesacKey`, the bare access token from `UserDefaults`, `Content-Type` for JSON
/// and multipart), builds queries with `URLComponents.queryItems` (a `nil` cursor gives the bare name `next`), encodes
/// bodies with a plain `JSONEncoder`; and `NetworkManager`, whose RxSwift `retry(when:)` on 419 refreshes the token,
/// sends the request once more inside the retry handler (answer dropped) and then re-subscribes the original request
/// (a third send); a failed refresh posts `.authenticationFailed` (login screen). The Naver image search
/// (`/v1/search/image`) is another server.
///
/// Chat (one-to-one, text only; the latest commit, d1ad118, still has it): the message button of another member's
/// profile opens the room (`POST /v1/chats` `{opponent_id}`, Profile/ProfileViewModel.swift); the room screen
/// (Message/ChatRoomViewModel.swift, Message/ChatRoomView.swift) loads the history without any query (the newest
/// messages), connects the room's socket when it appears, and sends `{"content"}` (Network/Query/MessageQuery.swift)
/// with `POST /v1/chats/{room_id}`, ignoring the answer: a message, the member's own included, shows only when the
/// socket delivers it. The message list (MessageList/MessageListViewModel.swift) polls `GET /v1/chats` every second
/// while it shows, names the first participant that is not me, and shows `lastChat?.content` and `updatedAt`. The
/// socket (Message/SocketIOManager.swift, SocketIO-Client-Swift 16.1.0) is a `SocketManager` on `"\(baseURL)/v1"` with
/// `[.log(true), .compress]` — default transports (long-polling, then the upgrade to WebSocket), no headers — joined
/// to the namespace `/chats-{room_id}`; each `chat` event's first item is re-serialized and decoded as
/// `ChatContentModel` (an undecodable one is printed and dropped). The twin runs that socket with the tests'
/// python-socketio client, which offers no permessage-deflate (`.compress`). Mirrored chat files: Network/Router.swift
/// (`myChats`, `makeChat`, `lookChat`, `sendChat`), Network/Query/ChatQuery.swift, Network/Query/MessageQuery.swift,
/// Network/Model/ChatListModel.swift, Message/SocketIOManager.swift. (ChatRoomViewModel loads the history before the
/// view's `.task` connects the socket, so a message committed in between shows only when the room is opened again;
/// the twin, like the app, loads the history first.)
enum BuyOrNotTwin {
    // MARK: Constants

    static let productID = "buyOrNot"

    // BuyOrNot: Resource/Category.swift
    enum Category: String, Sendable {
        case top
        case bottom
        case shoes
        case acc

        var hashTag: String {
            switch self {
            case .top: "#Top"
            case .bottom: "#Bottom"
            case .shoes: "#Shoes"
            case .acc: "#Acc"
            }
        }
    }

    // MARK: Queries (request bodies)

    // BuyOrNot: Network/Query/JoinQuery.swift
    struct JoinQuery: Encodable, Sendable {
        let email: String
        let password: String
        let nick: String
    }

    // BuyOrNot: Network/Query/LoginQuery.swift
    struct LoginQuery: Encodable, Sendable {
        let email: String
        let password: String
    }

    // BuyOrNot: Network/Query/ValidationEmailQuery.swift
    struct ValidationEmailQuery: Encodable, Sendable {
        let email: String
    }

    // BuyOrNot: Network/Query/PostQuery.swift (`product_id` is a constant stored property: encoded, never set)
    struct PostQuery: Encodable, Sendable {
        let title: String
        let content: String  // the category hashtag
        let content1: String  // the price as typed
        let product_id: String = "buyOrNot"
        let files: [String]
    }

    // BuyOrNot: Network/Query/PostQuery.swift (`PostQueryItems`, sent as URLQueryItems)
    struct PostQueryItems: Sendable {
        let next: String?
        let limit: String?
        let product_id = "buyOrNot"
        let hashTag: String?
    }

    // BuyOrNot: Network/Query/CommentQuery.swift
    struct CommentQuery: Codable, Sendable {
        let content: String
    }

    // BuyOrNot: Network/Query/LikeQuery.swift (request and response alike)
    struct LikeQueryAndModel: Codable, Sendable {
        let like_status: Bool
    }

    // BuyOrNot: Network/Query/BuyerQueryAndModel.swift (the April-2024 validation body)
    struct BuyerQueryAndModel: Codable, Sendable {
        let imp_uid: String
        let post_id: String
        let productName: String
        let price: Int
    }

    // BuyOrNot: Network/Query/ImagePostQuery.swift
    struct ImagePostQuery: Sendable {
        let file: Data
    }

    // BuyOrNot: Network/Query/ProfileQuery.swift
    struct ProfileQuery: Sendable {
        let nick: String
        let file: Data?
    }

    // BuyOrNot: Network/Query/ChatQuery.swift
    struct ChatQuery: Encodable, Sendable {
        let opponent_id: String
    }

    // BuyOrNot: Network/Query/MessageQuery.swift (text only: no `files`)
    struct MessageQuery: Encodable, Sendable {
        let content: String
    }

    // MARK: Models (BuyOrNot's Decodable types)

    // BuyOrNot: Network/Model/CreatorModel.swift
    struct CreatorModel: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String?
    }

    // BuyOrNot: Network/Model/CommentModel.swift
    struct CommentModel: Decodable, Sendable {
        let comment_id: String
        let content: String
        let createdAt: String
        let creator: CreatorModel
    }

    // BuyOrNot: Network/Model/PostModel.swift (title, content and content1 required)
    struct PostModel: Decodable, Sendable {
        let post_id: String
        let product_id: String
        let title: String
        let content: String
        let content1: String
        let createdAt: String
        let creator: CreatorModel
        let files: [String]
        var likes: [String]
        var likes2: [String]
        let hashTags: [String]
        let comments: [CommentModel]
        let buyers: [String]
    }

    // BuyOrNot: Network/Model/PostsModel.swift
    struct PostsModel: Decodable, Sendable {
        let data: [PostModel]
        let next_cursor: String
    }

    // BuyOrNot: Network/Model/ProfileModel.swift (my profile and others' alike; no email)
    struct ProfileModel: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String?
        var followers: [CreatorModel]
        var following: [CreatorModel]
        let posts: [String]
    }

    // BuyOrNot: Network/Model/FollowModel.swift
    struct FollowModel: Decodable, Sendable {
        let nick: String
        let opponent_nick: String
        let following_status: Bool
    }

    // BuyOrNot: Network/Model/ImageModel.swift
    struct ImageModel: Decodable, Sendable {
        let files: [String]
    }

    // BuyOrNot: Network/Model/JoinModel.swift (join and withdraw)
    struct JoinModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
    }

    // BuyOrNot: Network/Model/LoginModel.swift
    struct LoginModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
        let profileImage: String?
        let accessToken: String
        let refreshToken: String
    }

    // BuyOrNot: Network/Model/MessageModel.swift
    struct MessageModel: Decodable, Sendable {
        let message: String
    }

    // BuyOrNot: Network/Model/AccessTokenModel.swift
    struct AccessTokenModel: Decodable, Sendable {
        let accessToken: String
    }

    // BuyOrNot: Network/Model/PaymentsDataModel.swift
    struct PaymentsDataModel: Decodable, Sendable {
        let payment_id: String
        let buyer_id: String
        let post_id: String
        let merchant_uid: String
        let productName: String
        let price: Int
        let paidAt: String
    }

    // BuyOrNot: Network/Model/PaymentsDataListModel.swift
    struct PaymentsDataListModel: Decodable, Sendable {
        let data: [PaymentsDataModel]
    }

    // BuyOrNot: Network/Model/ChatListModel.swift (`ChatListModel`, the message list)
    struct ChatListModel: Decodable, Sendable {
        let data: [ChatModel]
    }

    // BuyOrNot: Network/Model/ChatListModel.swift (`ChatModel`, one room; `lastChat` optional)
    struct ChatModel: Decodable, Sendable {
        let room_id: String
        let createdAt: String
        let updatedAt: String
        let participants: [CreatorModel]
        let lastChat: ChatContentModel?
    }

    // BuyOrNot: Network/Model/ChatListModel.swift (`ChatContentModel`, one message: `content` optional, `files`
    // required; REST answers and the socket's `chat` payload alike)
    struct ChatContentModel: Decodable, Sendable {
        let chat_id: String
        let room_id: String
        let content: String?
        let createdAt: String
        let sender: CreatorModel
        let files: [String]
    }

    // BuyOrNot: Network/Model/ChatListModel.swift (`ChatRoomModel`, the history)
    struct ChatRoomModel: Decodable, Sendable {
        var data: [ChatContentModel]
    }

    // MARK: Helpers mirroring the app

    /// BuyOrNot: Extension/String+Ex.swift (`numericString`): the price is the digits of `content1`.
    static func numericString(_ string: String) -> String { string.filter { "0123456789".contains($0) } }

    /// BuyOrNot: String+Ex.swift (`formattedDate`) and Network/Model/ChatListModel.swift: ISO 8601 with fractional
    /// seconds ("Invalid date" otherwise).
    static func isAppDate(_ string: String) -> Bool { appDate(string) != nil }

    /// BuyOrNot: Network/Model/ChatListModel.swift (`ChatContentModel.toMessage`): the message's date for the chat
    /// view (the app falls back to `Date()`, "now", when it does not parse).
    static func appDate(_ string: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: string)
    }

    /// NicknameViewModel/EditProfileViewModel accept `^[a-zA-Z0-9가-힣]{3,10}$`: ten characters at most.
    static func appNick() -> String { String(TestEnvironment.unique("bn").prefix(10)) }

    /// PasswordViewModel: upper, lower, digit and one of `!@#$&*`, 8–16 characters.
    static let appPassword = "Buy0rNot!"

    /// Payment/PaymentViewController.swift builds `"ios_\(APIKey.sesacKey)_\(Int(Date().timeIntervalSince1970))"`;
    /// `APIKey` is an enum there, so the interpolation writes the case name `sesacKey`, not the key. The twin adds a
    /// unique tail so that parallel tests in the same second do not share an order number.
    static func merchantUID() -> String {
        "ios_sesacKey_\(Int(Date().timeIntervalSince1970))_\(TestEnvironment.unique(""))"
    }

    // MARK: Router

    /// What `Router.header` reads from `APIKey` and `UserDefaultsManager` when a request is built.
    struct Defaults: Sendable {
        let apiKey: String
        let accessToken: String
        let refreshToken: String
    }

    // BuyOrNot: Network/Router.swift + Network/TargetType.swift (`asURLRequest`), and for the two uploads
    // Network/NetworkManager.swift (`AF.upload(multipartFormData:with: urlRequest)`, which replaces the bare
    // `multipart/form-data` with Alamofire's boundary). The Naver route is left out.
    enum Router: Sendable {
        case tokenRefresh
        case login(LoginQuery)
        case validationEmail(ValidationEmailQuery)
        case join(JoinQuery)
        case uploadImage(ImagePostQuery)
        case uploadPost(PostQuery)
        case uploadComment(id: String, query: CommentQuery)
        case deleteComment(id: String, commentId: String)
        case updateComment(id: String, commentId: String, query: CommentQuery)
        case lookPosts(PostQueryItems)
        case lookPost(id: String)
        case hashTag(PostQueryItems)
        case likePost(id: String, query: LikeQueryAndModel, like: String)
        case userPost(PostQueryItems, id: String)
        case myProfile
        case myLikes(PostQueryItems)
        case myDislikes(PostQueryItems)
        case othersProfile(id: String)
        case plusFollow(id: String)
        case deleteFollow(id: String)
        case deletePost(id: String)
        case editProfile(ProfileQuery)
        case validationPayment(BuyerQueryAndModel)
        case withdraw
        case paymentList
        // chat
        case myChats
        case makeChat(ChatQuery)
        case lookChat(id: String)
        case sendChat(id: String, query: MessageQuery)

        var method: String {
            switch self {
            case .tokenRefresh, .lookPosts, .lookPost, .hashTag, .userPost, .myProfile, .myLikes, .myDislikes,
                .othersProfile,
                .withdraw, .paymentList, .myChats, .lookChat:
                "GET"
            case .login, .validationEmail, .join, .uploadImage, .uploadPost, .uploadComment, .likePost, .plusFollow,
                .validationPayment, .makeChat, .sendChat:
                "POST"
            case .updateComment, .editProfile:
                "PUT"
            case .deleteComment, .deleteFollow, .deletePost:
                "DELETE"
            }
        }

        var path: String {
            switch self {
            case .tokenRefresh: "/v1/auth/refresh"
            case .login: "/v1/users/login"
            case .validationEmail: "/v1/validation/email"
            case .join: "/v1/users/join"
            case .uploadImage: "/v1/posts/files"
            case .uploadPost, .lookPosts: "/v1/posts"
            case .uploadComment(let id, _): "/v1/posts/\(id)/comments"
            case .lookPost(let id), .deletePost(let id): "/v1/posts/\(id)"
            case .likePost(let id, _, let like): "/v1/posts/\(id)/\(like)"
            case .hashTag: "/v1/posts/hashtags"
            case .userPost(_, let id): "/v1/posts/users/\(id)"
            case .deleteComment(let id, let commentId), .updateComment(let id, let commentId, _):
                "/v1/posts/\(id)/comments/\(commentId)"
            case .myProfile, .editProfile: "/v1/users/me/profile"
            case .myLikes: "/v1/posts/likes/me"
            case .myDislikes: "/v1/posts/likes-2/me"
            case .othersProfile(let id): "/v1/users/\(id)/profile"
            case .plusFollow(let id), .deleteFollow(let id): "/v1/follow/\(id)"
            case .validationPayment: "/v1/payments/validation"
            case .withdraw: "/v1/users/withdraw"
            case .paymentList: "/v1/payments/me"
            case .myChats, .makeChat: "/v1/chats"
            case .lookChat(let id), .sendChat(let id, _): "/v1/chats/\(id)"
            }
        }

        /// `header` (a dictionary: the order on the wire is not the app's concern).
        func header(_ d: Defaults) -> [(String, String)] {
            switch self {
            case .tokenRefresh:
                [("SesacKey", d.apiKey), ("Authorization", d.accessToken), ("Refresh", d.refreshToken)]
            case .login, .validationEmail, .join:
                [("Content-Type", "application/json"), ("SesacKey", d.apiKey)]
            case .uploadImage, .editProfile:
                [("Authorization", d.accessToken), ("Content-Type", "multipart/form-data"), ("SesacKey", d.apiKey)]
            case .uploadPost, .likePost, .uploadComment, .updateComment, .validationPayment, .makeChat, .sendChat:
                [("Authorization", d.accessToken), ("Content-Type", "application/json"), ("SesacKey", d.apiKey)]
            case .lookPosts, .lookPost, .hashTag, .userPost, .deleteComment, .myProfile, .myLikes, .myDislikes,
                .othersProfile,
                .plusFollow, .deleteFollow, .deletePost, .withdraw, .paymentList, .myChats, .lookChat:
                [("Authorization", d.accessToken), ("SesacKey", d.apiKey)]
            }
        }

        /// `queryItems` (`URLComponents`: in this order, a nil value gives the bare name).
        var queryItems: [(String, String?)]? {
            switch self {
            case .lookPosts(let query), .userPost(let query, _), .myLikes(let query), .myDislikes(let query):
                let items: [(String, String?)] = [
                    ("next", query.next), ("limit", query.limit), ("product_id", query.product_id),
                ]
                return items
            case .hashTag(let query):
                let items: [(String, String?)] = [
                    ("next", query.next), ("limit", query.limit), ("product_id", query.product_id),
                    ("hashTag", query.hashTag),
                ]
                return items
            default:
                return nil
            }
        }

        /// `body` (`JSONEncoder().encode(query)`).
        func body() throws -> Data? {
            let encoder = JSONEncoder()
            switch self {
            case .login(let query): return try encoder.encode(query)
            case .validationEmail(let query): return try encoder.encode(query)
            case .join(let query): return try encoder.encode(query)
            case .uploadPost(let query): return try encoder.encode(query)
            case .likePost(_, let query, _): return try encoder.encode(query)
            case .uploadComment(_, let query): return try encoder.encode(query)
            case .updateComment(_, _, let query): return try encoder.encode(query)
            case .validationPayment(let query): return try encoder.encode(query)
            case .makeChat(let query): return try encoder.encode(query)
            case .sendChat(_, let query): return try encoder.encode(query)
            default: return nil
            }
        }

        func request(_ d: Defaults) throws -> TwinRequest {
            var request = TwinRequest(
                method, path, query: queryItems.map(TwinQuery.urlComponents), headers: header(d), body: try body())
            var form = TwinMultipart()
            switch self {
            case .uploadImage(let query):
                // NetworkManager.performRequest `.uploadImage`: one part, `files`, `buyOrNot.jpg`, `image/jpg`.
                form.file("files", filename: "buyOrNot.jpg", mimeType: "image/jpg", bytes: Array(query.file))
            case .editProfile(let query):
                // `.editProfile`: the photo first (when picked), then the nick as a text part without a type.
                if let file = query.file {
                    form.file("profile", filename: "buyOrNot.jpg", mimeType: "image/jpg", bytes: Array(file))
                }
                form.text("nick", query.nick)
            default:
                return request
            }
            request.headers = request.headers.filter { $0.0 != "Content-Type" } + [("Content-Type", form.contentType)]
            request.body = form.encoded()
            return request
        }
    }

    // MARK: Session: UserDefaultsManager + NetworkManager

    /// `NetworkManager.refreshToken` failed: the app posts `.authenticationFailed` and shows the login screen.
    struct AuthenticationFailed: Error, Sendable, CustomStringConvertible {
        let status: Int
        let body: String
        var description: String { "the token refresh answered \(status) \(body); BuyOrNot shows the login screen" }
    }

    /// BuyOrNot: PropertyWrapper/UserDefaultsManager.swift (what the app keeps) and Network/NetworkManager.swift (how it
    /// sends).
    actor Session {
        let client: TwinClient
        private(set) var userId = ""
        private(set) var email = ""
        private(set) var password = ""
        private(set) var nick = ""
        private(set) var profileImage = ""
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        /// What `NetworkManager` did, for the tests to assert on.
        private(set) var refreshes = 0
        private(set) var loginScreens = 0
        private var sends: [String: Int] = [:]

        init(client: TwinClient) { self.client = client }

        var defaults: Defaults { Defaults(apiKey: client.apiKey, accessToken: accessToken, refreshToken: refreshToken) }

        /// The sign-up screens keep the email (SignUpViewController) and the password (PasswordViewController).
        func remember(email: String, password: String) {
            self.email = email
            self.password = password
        }

        /// NicknameViewModel / SignInViewModel after a login.
        func signedIn(_ login: LoginModel) {
            userId = login.user_id
            email = login.email
            nick = login.nick
            profileImage = login.profileImage ?? ""
            accessToken = login.accessToken
            refreshToken = login.refreshToken
        }

        /// How many times a request (`"METHOD /path"`) went out.
        func sendCount(_ key: String) -> Int { sends[key, default: 0] }

        /// One `performRequest` / `performRequestVoidType` subscription, with its `retry(when:)`: on 419, refresh,
        /// send the request again inside the handler (its answer is dropped; an error there ends the chain), then
        /// re-subscribe the original request.
        func send(_ route: Router) async throws -> GatewayClient.Reply {
            let reply = try await sendOnce(route)
            guard reply.status == 419 else { return reply }
            try await renewAccessToken()
            let nested = try await send(route)
            guard (200..<300).contains(nested.status) else { return nested }
            return try await send(route)
        }

        /// `NetworkManager.performRequest(route:decodingType:)`: `.validate(statusCode: 200..<300)` and the app's type.
        func perform<Model: Decodable & Sendable>(
            _ route: Router, as type: Model.Type, status: Int = 200,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> Model {
            let reply = try await send(route)
            #expect(
                reply.status == status, "\(route.method) \(route.path): \(reply.status) \(reply.text)",
                sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        /// `NetworkManager.performRequestVoidType(route:)`: 2xx, no body read.
        func performVoid(_ route: Router, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let reply = try await send(route)
            #expect(
                reply.status == 200, "\(route.method) \(route.path): \(reply.status) \(reply.text)",
                sourceLocation: sourceLocation)
        }

        /// Kingfisher with `NetworkManager.imageDownloadRequest` (`Authorization` + `SesacKey`) at
        /// `"\(APIKey.baseURL)/v1/\(path)"`; no retry on 419.
        func image(_ path: String) async throws -> GatewayClient.Reply {
            try await client.send(
                TwinRequest(
                    "GET", "/v1/" + path, headers: [("Authorization", accessToken), ("SesacKey", client.apiKey)]))
        }

        private func sendOnce(_ route: Router) async throws -> GatewayClient.Reply {
            sends["\(route.method) \(route.path)", default: 0] += 1
            return try await client.send(try route.request(defaults))
        }

        /// `NetworkManager.refreshToken()` (`.validate()`, any failure → `.authenticationFailed`).
        private func renewAccessToken() async throws {
            let reply = try await client.send(try Router.tokenRefresh.request(defaults))
            guard (200..<300).contains(reply.status), let model = try? client.decode(AccessTokenModel.self, from: reply)
            else {
                loginScreens += 1
                throw AuthenticationFailed(status: reply.status, body: reply.text)
            }
            refreshes += 1
            accessToken = model.accessToken
        }

        // MARK: Time passing (test-side only)

        /// The access token expires: replaced by a token of the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userId)
        }

        /// The refresh token's 14 days pass (its session's expiry moved into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
        }
    }

    // MARK: Journeys' building blocks

    /// The sign-up screens: email check (SignUpViewModel), password (kept locally), nick (NicknameViewModel: join,
    /// then login at once, tokens into UserDefaults), then the root becomes the tab bar.
    static func signUp(_ client: TwinClient, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Session
    {
        let session = Session(client: client)
        let nick = appNick()
        let email = "\(nick)@example.com"
        let message = try await session.perform(
            .validationEmail(ValidationEmailQuery(email: email)), as: MessageModel.self,
            sourceLocation: sourceLocation)
        #expect(!message.message.isEmpty, sourceLocation: sourceLocation)
        await session.remember(email: email, password: appPassword)
        let joined = try await session.perform(
            .join(JoinQuery(email: email, password: appPassword, nick: nick)), as: JoinModel.self,
            sourceLocation: sourceLocation)
        #expect(joined.nick == nick, sourceLocation: sourceLocation)
        let login = try await session.perform(
            .login(LoginQuery(email: email, password: appPassword)), as: LoginModel.self,
            sourceLocation: sourceLocation)
        #expect(login.user_id == joined.user_id, sourceLocation: sourceLocation)
        #expect(login.profileImage == nil, sourceLocation: sourceLocation)
        await session.signedIn(login)
        return session
    }

    /// `CustomTabBarController.viewDidLoad`: my profile for the tab bar item (and its image, loaded from
    /// `…/v1/\(profileImage ?? "")`), and the first tab's `PostViewController.reloadData`: the newest five posts,
    /// first page without a cursor (`next&limit=5&product_id=buyOrNot`).
    static func mainScreens(_ session: Session, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> (profile: ProfileModel, feed: PostsModel)
    {
        let profile = try await session.perform(.myProfile, as: ProfileModel.self, sourceLocation: sourceLocation)
        let avatar = try await session.image(profile.profileImage ?? "")
        if profile.profileImage == nil {
            // `…/v1/` is not an image; Kingfisher fails and the tab keeps its placeholder.
            #expect(
                avatar.status != 200 && avatar.status < 500, "\(avatar.status) \(avatar.text)",
                sourceLocation: sourceLocation)
        } else {
            #expect(avatar.status == 200, "\(avatar.status) \(avatar.text)", sourceLocation: sourceLocation)
        }
        let feed = try await session.perform(
            .lookPosts(PostQueryItems(next: nil, limit: "5", hashTag: nil)), as: PostsModel.self,
            sourceLocation: sourceLocation)
        #expect(feed.data.count <= 5, sourceLocation: sourceLocation)
        return (profile, feed)
    }

    /// The middle tab button: pick a category, pick a photo (jpeg, uploaded at once by CustomTabBarController), then
    /// UploadPostViewModel posts title, category hashtag and price.
    static func post(
        _ session: Session, category: Category, title: String, price: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> PostModel {
        let image = try await session.perform(
            .uploadImage(ImagePostQuery(file: Data(TestImages.png))), as: ImageModel.self,
            sourceLocation: sourceLocation)
        #expect(image.files.count == 1, sourceLocation: sourceLocation)
        return try await session.perform(
            .uploadPost(PostQuery(title: title, content: category.hashTag, content1: price, files: image.files)),
            as: PostModel.self, sourceLocation: sourceLocation)
    }

    // MARK: Socket: Message/SocketIOManager.swift

    /// A room screen with its socket, run by the tests' python-socketio client as `SocketIOManager.fetchSocket(roomId:)`
    /// and `establishConnection()` configure it: the manager URL `"\(baseURL)/v1"` (Engine.IO's `/socket.io/` path
    /// replaces its path), the default transports (long-polling, then the upgrade to WebSocket), no headers, the
    /// namespace `/chats-{room_id}`. While it is connected, `sends` go out one after the other, each exactly as
    /// `ChatRoomViewModel.sendMessage` builds it for the member who types it; answers the socket's `chat` events
    /// decoded as the `chat` handler does (`JSONSerialization.data` of the first item, then `JSONDecoder()`; an event
    /// that does not decode is dropped, and the test fails naming it).
    static func chatRoomSocket(
        room: String, sends: [(Session, String)], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (outcome: SocketIOTestClient.Outcome, chats: [ChatContentModel]) {
        let gateway = try TestEnvironment.gatewayURL()
        var rest: [[String: Any]] = []
        for (session, content) in sends {
            let request = try Router.sendChat(id: room, query: MessageQuery(content: content)).request(
                await session.defaults)
            rest.append([
                "url": gateway, "headers": Dictionary(request.headers, uniquingKeysWith: { $1 }),
                "body": String(decoding: request.body ?? Data(), as: UTF8.self),
            ])
        }
        let outcome = try await SocketIOTestClient.run([
            "url": gateway + "/v1", "room": room, "transports": ["polling", "websocket"], "headers": [String: String](),
            "rest": rest, "messages": sends.count, "timeout": 30,
        ])
        #expect(outcome.refusal == nil, "\(String(describing: outcome.refusal))", sourceLocation: sourceLocation)
        #expect(outcome.transport == "websocket", sourceLocation: sourceLocation)
        var chats: [ChatContentModel] = []
        for data in outcome.eventData {
            do {
                chats.append(try JSONDecoder().decode(ChatContentModel.self, from: data))
            } catch {
                Issue.record(
                    "the app's ChatContentModel could not decode the chat event \(String(decoding: data, as: UTF8.self)): \(error)",
                    sourceLocation: sourceLocation)
            }
        }
        return (outcome, chats)
    }
}

@Suite("BuyOrNot twin", .serialized)
struct BuyOrNotTwinTests {
    /// A seller posts a hoodie in "Top"; a buyer finds it in the feed and in the category, votes "buy" then "don't",
    /// comments (edit, delete, comment again), follows (the follow button toggles through 409), buys it, sees it in
    /// the purchase list, renames with a new photo, and withdraws.
    @Test func sellerPostsBuyerVotesCommentsFollowsBuysRenamesAndWithdraws() async throws {
        let client = try TwinClient()
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)

        // The seller signs up and lands on the tab bar: the profile must be there at once.
        let seller = try await BuyOrNotTwin.signUp(client)
        let sellerId = await seller.userId
        let sellerNick = await seller.nick
        let sellerHome = try await BuyOrNotTwin.mainScreens(seller)
        #expect(sellerHome.profile.user_id == sellerId)
        #expect(sellerHome.profile.nick == sellerNick)
        #expect(sellerHome.profile.profileImage == nil)
        #expect(
            sellerHome.profile.posts.isEmpty && sellerHome.profile.followers.isEmpty
                && sellerHome.profile.following.isEmpty)

        let title = "나이키 테크플리스 후드"
        let post = try await BuyOrNotTwin.post(seller, category: .top, title: title, price: "25000")
        #expect(post.product_id == BuyOrNotTwin.productID)
        #expect(post.title == title)
        #expect(post.content == "#Top")
        #expect(post.content1 == "25000")
        #expect(post.hashTags == ["Top"], "the category tag in the author's spelling")
        #expect(post.files.count == 1)
        #expect(post.creator.user_id == sellerId)
        #expect(post.creator.nick == sellerNick)
        #expect(post.likes.isEmpty && post.likes2.isEmpty && post.buyers.isEmpty && post.comments.isEmpty)
        #expect(BuyOrNotTwin.isAppDate(post.createdAt), "createdAt \(post.createdAt)")
        let photo = try await seller.image(post.files[0])
        #expect(photo.status == 200)
        #expect(photo.body == TestImages.png)

        // The buyer signs up: the newest post opens the feed.
        let buyer = try await BuyOrNotTwin.signUp(client)
        let buyerId = await buyer.userId
        let buyerNick = await buyer.nick
        let buyerHome = try await BuyOrNotTwin.mainScreens(buyer)
        #expect(buyerHome.feed.data.first?.post_id == post.post_id)

        // The category menu (ContentPostViewModel, `.categoryPosts`): hashtag `top`, 21 a page, paged to the end.
        var cursor: String? = nil
        var found = false
        var pages = 0
        repeat {
            let page = try await buyer.perform(
                .hashTag(
                    BuyOrNotTwin.PostQueryItems(next: cursor, limit: "21", hashTag: BuyOrNotTwin.Category.top.rawValue)),
                as: BuyOrNotTwin.PostsModel.self)
            #expect(page.data.allSatisfy { $0.hashTags.contains { $0.lowercased() == "top" } })
            found = found || page.data.contains { $0.post_id == post.post_id }
            cursor = page.next_cursor
            pages += 1
        } while cursor != "0" && pages < 100
        #expect(found, "writing #Top and searching top finds the post")
        #expect(cursor == "0")

        // Votes (PostViewModel): "buy" on an unvoted post is one call; "don't" while "buy" is on sends both together.
        let voted = try await buyer.perform(
            .likePost(id: post.post_id, query: .init(like_status: true), like: "like"),
            as: BuyOrNotTwin.LikeQueryAndModel.self)
        #expect(voted.like_status)
        async let unlike = buyer.perform(
            .likePost(id: post.post_id, query: .init(like_status: false), like: "like"),
            as: BuyOrNotTwin.LikeQueryAndModel.self)
        async let dislike = buyer.perform(
            .likePost(id: post.post_id, query: .init(like_status: true), like: "like-2"),
            as: BuyOrNotTwin.LikeQueryAndModel.self)
        let (unliked, disliked) = try await (unlike, dislike)
        #expect(!unliked.like_status)
        #expect(disliked.like_status)
        let afterVotes = try await buyer.perform(.lookPost(id: post.post_id), as: BuyOrNotTwin.PostModel.self)
        #expect(afterVotes.likes.isEmpty)
        #expect(afterVotes.likes2 == [buyerId])
        // My page tabs: "don't" list and "buy" list (`next=` here, with the product filter).
        let dislikes = try await buyer.perform(
            .myDislikes(BuyOrNotTwin.PostQueryItems(next: "", limit: "20", hashTag: nil)),
            as: BuyOrNotTwin.PostsModel.self)
        #expect(dislikes.data.map(\.post_id) == [post.post_id])
        let likes = try await buyer.perform(
            .myLikes(BuyOrNotTwin.PostQueryItems(next: "", limit: "20", hashTag: nil)),
            as: BuyOrNotTwin.PostsModel.self)
        #expect(likes.data.isEmpty)

        // Comments (CommentViewModel / EditCommentViewModel): read, write, edit, delete (then re-read), write again.
        _ = try await buyer.perform(.lookPost(id: post.post_id), as: BuyOrNotTwin.PostModel.self)
        let comment = try await buyer.perform(
            .uploadComment(id: post.post_id, query: .init(content: "색상 실물이 궁금해요")),
            as: BuyOrNotTwin.CommentModel.self)
        #expect(comment.creator.user_id == buyerId)
        #expect(comment.content == "색상 실물이 궁금해요")
        #expect(BuyOrNotTwin.isAppDate(comment.createdAt))
        let edited = try await buyer.perform(
            .updateComment(id: post.post_id, commentId: comment.comment_id, query: .init(content: "사이즈는 L인가요?")),
            as: BuyOrNotTwin.CommentModel.self)
        #expect(edited.comment_id == comment.comment_id)
        #expect(edited.content == "사이즈는 L인가요?")
        try await buyer.performVoid(.deleteComment(id: post.post_id, commentId: comment.comment_id))
        let afterDelete = try await buyer.perform(.lookPost(id: post.post_id), as: BuyOrNotTwin.PostModel.self)
        #expect(!afterDelete.comments.contains { $0.comment_id == comment.comment_id })
        let kept = try await buyer.perform(
            .uploadComment(id: post.post_id, query: .init(content: "정가 대비 괜찮네요")),
            as: BuyOrNotTwin.CommentModel.self)

        // The seller's profile (ProfileViewModel, other): their profile and mine; the follow button POSTs and falls
        // back to DELETE on 409, so a second tap unfollows.
        let sellerProfile = try await buyer.perform(.othersProfile(id: sellerId), as: BuyOrNotTwin.ProfileModel.self)
        #expect(sellerProfile.nick == sellerNick)
        #expect(sellerProfile.posts.contains(post.post_id))
        _ = try await buyer.perform(.myProfile, as: BuyOrNotTwin.ProfileModel.self)
        let follow = try await buyer.perform(.plusFollow(id: sellerId), as: BuyOrNotTwin.FollowModel.self)
        #expect(follow.following_status)
        #expect(follow.nick == buyerNick)
        #expect(follow.opponent_nick == sellerNick)
        let secondTap = try await buyer.send(.plusFollow(id: sellerId))
        #expect(secondTap.status == 409, "\(secondTap.text)")
        let unfollow = try await buyer.perform(.deleteFollow(id: sellerId), as: BuyOrNotTwin.FollowModel.self)
        #expect(!unfollow.following_status)
        let refollow = try await buyer.perform(.plusFollow(id: sellerId), as: BuyOrNotTwin.FollowModel.self)
        #expect(refollow.following_status)
        let followed = try await buyer.perform(.othersProfile(id: sellerId), as: BuyOrNotTwin.ProfileModel.self)
        #expect(followed.followers.map(\.user_id) == [buyerId])
        let buyerProfile = try await buyer.perform(.myProfile, as: BuyOrNotTwin.ProfileModel.self)
        #expect(buyerProfile.following.map(\.user_id) == [sellerId])

        // Buy (PaymentViewController): the SDK pays the digits of content1 (the PortOne test server plays it), then the
        // app restates the price; on success the root becomes the tab bar again.
        let amount = try #require(Int(BuyOrNotTwin.numericString(post.content1)))
        let merchantUID = BuyOrNotTwin.merchantUID()
        let paid = try await sandbox.send(
            "POST", "/__sandbox/payments",
            json: """
                {"merchant_uid":"\(merchantUID)","amount":\(amount),"name":"\(post.title)"}
                """)
        #expect(paid.status == 200, "\(paid.text)")
        let impUID = try #require(try paid.json.string("imp_uid"))
        try await buyer.performVoid(
            .validationPayment(
                BuyOrNotTwin.BuyerQueryAndModel(
                    imp_uid: impUID, post_id: post.post_id,
                    productName: post.title, price: amount)))
        let receipt = try await sandbox.send("GET", "/__sandbox/payments/\(impUID)")
        #expect(try receipt.json.string("status") == "paid", "the payment was kept, not refunded: \(receipt.text)")
        let afterPurchase = try await BuyOrNotTwin.mainScreens(buyer)
        let sold = try #require(afterPurchase.feed.data.first(where: { $0.post_id == post.post_id }))
        #expect(sold.buyers == [buyerId], "the cell shows 판매완료")
        // PurchaseListViewModel
        let purchases = try await buyer.perform(.paymentList, as: BuyOrNotTwin.PaymentsDataListModel.self)
        let purchase = try #require(purchases.data.first)
        #expect(purchase.post_id == post.post_id)
        #expect(purchase.buyer_id == buyerId)
        #expect(purchase.price == amount)
        #expect(purchase.productName == post.title)
        #expect(purchase.merchant_uid == merchantUID)
        #expect(BuyOrNotTwin.isAppDate(purchase.paidAt), "paidAt \(purchase.paidAt)")
        // The seller's "my posts" tab (ContentPostViewModel `.myPosts`, no cursor, 20 a page) shows it sold.
        let sellerPosts = try await seller.perform(
            .userPost(BuyOrNotTwin.PostQueryItems(next: nil, limit: "20", hashTag: nil), id: sellerId),
            as: BuyOrNotTwin.PostsModel.self)
        #expect(sellerPosts.data.map(\.post_id) == [post.post_id])
        #expect(sellerPosts.data.first?.buyers == [buyerId])
        #expect(sellerPosts.next_cursor == "0")

        // The buyer edits the profile (photo + nick); the tab bar reloads it; the seller sees the new nick on the comment.
        let newNick = BuyOrNotTwin.appNick()
        let renamed = try await buyer.perform(
            .editProfile(BuyOrNotTwin.ProfileQuery(nick: newNick, file: Data(TestImages.png))),
            as: BuyOrNotTwin.ProfileModel.self)
        #expect(renamed.nick == newNick)
        let avatarPath = try #require(renamed.profileImage)
        let reloaded = try await BuyOrNotTwin.mainScreens(buyer)
        #expect(reloaded.profile.nick == newNick)
        #expect(reloaded.profile.profileImage == avatarPath)
        let avatar = try await buyer.image(avatarPath)
        #expect(avatar.body == TestImages.png)
        let sellerReads = try await seller.perform(.lookPost(id: post.post_id), as: BuyOrNotTwin.PostModel.self)
        let keptAsSeen = try #require(sellerReads.comments.first(where: { $0.comment_id == kept.comment_id }))
        #expect(keptAsSeen.creator.nick == newNick)
        #expect(keptAsSeen.creator.profileImage == avatarPath)

        // Withdraw (EditProfileViewModel.deleteTrigger): the token is dead at once; the vote and the comment are gone.
        let withdrawn = try await buyer.perform(.withdraw, as: BuyOrNotTwin.JoinModel.self)
        #expect(withdrawn.user_id == buyerId)
        #expect(withdrawn.nick == newNick)
        let afterWithdraw = try await buyer.send(.myProfile)
        #expect(afterWithdraw.status == 401, "\(afterWithdraw.text)")
        // (The post's `buyers` drops the withdrawn buyer too — decision 0004 — so the seller's cell stops showing
        // 판매완료; see the notes. Not asserted either way here.)
        let sellerView = try await seller.perform(.lookPost(id: post.post_id), as: BuyOrNotTwin.PostModel.self)
        #expect(!sellerView.likes2.contains(buyerId))
        #expect(!sellerView.comments.contains { $0.comment_id == kept.comment_id })
        let sellerProfileAfter = try await seller.perform(.myProfile, as: BuyOrNotTwin.ProfileModel.self)
        #expect(!sellerProfileAfter.followers.contains { $0.user_id == buyerId })
    }

    /// The feed pages five at a time (the first page without a cursor) until `next_cursor` is "0", nothing repeated;
    /// the "my posts" tab lists all of a member's posts; a deleted post leaves the feed and answers 410.
    @Test func feedPagesUntilTheEndAndADeletedPostLeavesIt() async throws {
        let client = try TwinClient()
        let writer = try await BuyOrNotTwin.signUp(client)
        let writerId = await writer.userId
        _ = try await BuyOrNotTwin.mainScreens(writer)

        var mine: [String] = []
        let categories: [BuyOrNotTwin.Category] = [.bottom, .shoes, .acc, .bottom, .shoes, .acc]
        for (index, category) in categories.enumerated() {
            let post = try await BuyOrNotTwin.post(
                writer, category: category, title: "코디 \(index)", price: "\(10_000 + index * 1_000)")
            #expect(post.hashTags == [String(category.hashTag.dropFirst())])
            mine.append(post.post_id)
        }

        // PostViewController: reloadData (no cursor), then every time the table reaches the bottom, until "0".
        var cursor: String? = nil
        var seen: [String] = []
        var pages = 0
        repeat {
            let page = try await writer.perform(
                .lookPosts(BuyOrNotTwin.PostQueryItems(next: cursor, limit: "5", hashTag: nil)),
                as: BuyOrNotTwin.PostsModel.self)
            #expect(page.data.count <= 5)
            #expect(page.data.allSatisfy { $0.product_id == BuyOrNotTwin.productID && !$0.files.isEmpty })
            seen += page.data.map(\.post_id)
            cursor = page.next_cursor
            pages += 1
        } while cursor != "0" && pages < 1_000
        #expect(cursor == "0")
        #expect(Set(seen).count == seen.count, "no post twice across pages")
        #expect(Array(seen.prefix(6)) == Array(mine.reversed()), "newest first")

        // My page, "my posts" tab.
        let myPosts = try await writer.perform(
            .userPost(BuyOrNotTwin.PostQueryItems(next: nil, limit: "20", hashTag: nil), id: writerId),
            as: BuyOrNotTwin.PostsModel.self)
        #expect(myPosts.data.map(\.post_id) == Array(mine.reversed()))
        #expect(myPosts.next_cursor == "0")
        // The category shoes holds two of them.
        let shoes = try await writer.perform(
            .hashTag(
                BuyOrNotTwin.PostQueryItems(next: nil, limit: "21", hashTag: BuyOrNotTwin.Category.shoes.rawValue)),
            as: BuyOrNotTwin.PostsModel.self)
        #expect(shoes.data.prefix(2).map(\.post_id) == [mine[4], mine[1]])

        // Delete the newest (PostViewModel.deleteButtonTap), then reloadData.
        let newest = try #require(mine.last)
        try await writer.performVoid(.deletePost(id: newest))
        let feed = try await writer.perform(
            .lookPosts(BuyOrNotTwin.PostQueryItems(next: nil, limit: "5", hashTag: nil)),
            as: BuyOrNotTwin.PostsModel.self)
        #expect(feed.data.first?.post_id == mine[4])
        let gone = try await writer.send(.lookPost(id: newest))
        #expect(gone.status == 410, "\(gone.text)")
        let profile = try await writer.perform(.myProfile, as: BuyOrNotTwin.ProfileModel.self)
        #expect(Set(profile.posts) == Set(mine.dropLast()))
    }

    /// The access token expires while the app is open: the tab bar's profile call gets 419, NetworkManager refreshes
    /// and sends the call twice more (its retry handler's own request, then the re-subscribed original); a second
    /// expiry is renewed with the same refresh token; when the refresh token has expired too, the refresh answers
    /// 418, the app goes to the login screen, and logging in works.
    @Test func expiredTokensAreRenewedThenTheLoginScreenWhenTheRefreshTokenExpires() async throws {
        let client = try TwinClient()
        let member = try await BuyOrNotTwin.signUp(client)
        let memberId = await member.userId
        _ = try await BuyOrNotTwin.mainScreens(member)
        let profileCall = "GET /v1/users/me/profile"
        let before = await member.sendCount(profileCall)

        try await member.letAccessTokenExpire()
        let profile = try await member.perform(.myProfile, as: BuyOrNotTwin.ProfileModel.self)
        #expect(profile.user_id == memberId)
        #expect(await member.refreshes == 1)
        #expect(
            await member.sendCount(profileCall) == before + 3,
            "419, the retry handler's request, the re-subscribed request")

        try await member.letAccessTokenExpire()
        _ = try await member.perform(
            .lookPosts(BuyOrNotTwin.PostQueryItems(next: nil, limit: "5", hashTag: nil)),
            as: BuyOrNotTwin.PostsModel.self)
        #expect(await member.refreshes == 2, "the refresh token from the login still works")

        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        do {
            _ = try await member.send(.myProfile)
            Issue.record("the request went through although the refresh token expired")
        } catch let failure as BuyOrNotTwin.AuthenticationFailed {
            #expect(failure.status == 418, "\(failure)")
        }
        #expect(await member.loginScreens == 1)

        // SignInViewModel: login with the kept email and password, then the tab bar again.
        let email = await member.email
        let password = await member.password
        let login = try await member.perform(
            .login(BuyOrNotTwin.LoginQuery(email: email, password: password)), as: BuyOrNotTwin.LoginModel.self)
        #expect(login.user_id == memberId)
        await member.signedIn(login)
        let home = try await BuyOrNotTwin.mainScreens(member)
        #expect(home.profile.user_id == memberId)
    }

    /// Chat: the buyer taps the message button on the seller's profile (the room opens with an empty history), asks
    /// on the room screen and sees the question come back on the room's socket; the seller's message list shows the
    /// room with the question, the seller opens it and answers, the buyer replies, and the seller's socket delivers
    /// both; the seller adds a line (the app's model decodes the send's answer). The buyer's list, polled after the
    /// access token expired (three sends), shows the last line and the seller's photo; the history reads all four,
    /// oldest first; the seller's own message button on the buyer's profile opens the same room. When the buyer
    /// withdraws, the room leaves the seller's list and a message sent from the open room screen is refused (410).
    @Test func buyerAndSellerChatFromTheProfileOverRESTAndTheRoomSocket() async throws {
        let client = try TwinClient()
        let seller = try await BuyOrNotTwin.signUp(client)
        let sellerId = await seller.userId
        let sellerNick = await seller.nick
        _ = try await BuyOrNotTwin.mainScreens(seller)
        // The seller has a photo (EditProfileViewModel), for the buyer's message list.
        let sellerProfile = try await seller.perform(
            .editProfile(BuyOrNotTwin.ProfileQuery(nick: sellerNick, file: Data(TestImages.png))),
            as: BuyOrNotTwin.ProfileModel.self)
        let sellerAvatar = try #require(sellerProfile.profileImage)
        let post = try await BuyOrNotTwin.post(seller, category: .shoes, title: "뉴발란스 993", price: "259000")

        let buyer = try await BuyOrNotTwin.signUp(client)
        let buyerId = await buyer.userId
        let buyerNick = await buyer.nick
        _ = try await BuyOrNotTwin.mainScreens(buyer)

        // The post, its author's profile (ProfileViewModel, other) and the message button: `POST /v1/chats`.
        let detail = try await buyer.perform(.lookPost(id: post.post_id), as: BuyOrNotTwin.PostModel.self)
        let profile = try await buyer.perform(
            .othersProfile(id: detail.creator.user_id), as: BuyOrNotTwin.ProfileModel.self)
        let opened = try await buyer.perform(
            .makeChat(BuyOrNotTwin.ChatQuery(opponent_id: profile.user_id)), as: BuyOrNotTwin.ChatModel.self)
        #expect(Set(opened.participants.map(\.user_id)) == [buyerId, sellerId])
        #expect(opened.lastChat == nil)
        #expect(BuyOrNotTwin.isAppDate(opened.createdAt), "createdAt \(opened.createdAt)")
        #expect(BuyOrNotTwin.isAppDate(opened.updatedAt), "updatedAt \(opened.updatedAt)")
        let room = opened.room_id

        // `fetchSocket`, then ChatRoomViewModel.init: the history, no query.
        let empty = try await buyer.perform(.lookChat(id: room), as: BuyOrNotTwin.ChatRoomModel.self)
        #expect(empty.data.isEmpty)
        // ChatRoomView's `.task` connects the socket; the buyer asks. The question shows when the socket brings it.
        let question = "아직 판매 중인가요?"
        let asking = try await BuyOrNotTwin.chatRoomSocket(room: room, sends: [(buyer, question)])
        #expect(asking.chats.map(\.chat_id) == asking.outcome.posted, "the buyer's own message, once")
        let asked = try #require(asking.chats.first)
        #expect(asked.room_id == room)
        #expect(asked.content == question)
        #expect(asked.sender.user_id == buyerId)
        #expect(asked.sender.nick == buyerNick)
        #expect(asked.files.isEmpty)
        #expect(BuyOrNotTwin.isAppDate(asked.createdAt), "createdAt \(asked.createdAt)")

        // The seller's message list (MessageListViewModel): the other participant, `lastChat?.content`, `updatedAt`.
        let sellerList = try await seller.perform(.myChats, as: BuyOrNotTwin.ChatListModel.self)
        let sellerRow = try #require(sellerList.data.first { $0.room_id == room })
        let buyerAsSeen = try #require(sellerRow.participants.first { $0.user_id != sellerId })
        #expect(buyerAsSeen.user_id == buyerId)
        #expect(buyerAsSeen.nick == buyerNick)
        #expect(buyerAsSeen.profileImage == nil, "no photo: the cell keeps its placeholder")
        #expect(sellerRow.lastChat?.chat_id == asked.chat_id)
        #expect(sellerRow.lastChat?.content == question)
        #expect(BuyOrNotTwin.isAppDate(sellerRow.updatedAt), "updatedAt \(sellerRow.updatedAt)")
        // The seller taps the row: `fetchSocket`, the history, then the socket; the seller answers and the buyer,
        // on the other phone, replies.
        let sellerHistory = try await seller.perform(.lookChat(id: room), as: BuyOrNotTwin.ChatRoomModel.self)
        #expect(sellerHistory.data.map(\.chat_id) == [asked.chat_id])
        #expect(sellerHistory.data.first?.sender.user_id == buyerId, "shown as the other member's message")
        let answer = "네, 판매 중입니다. 사이즈는 270이에요."
        let reply = "좋아요, 오늘 구매할게요!"
        let talking = try await BuyOrNotTwin.chatRoomSocket(room: room, sends: [(seller, answer), (buyer, reply)])
        #expect(talking.chats.map(\.chat_id) == talking.outcome.posted, "each message once, in order")
        #expect(talking.chats.map(\.content) == [answer, reply])
        #expect(talking.chats.map(\.sender.user_id) == [sellerId, buyerId])
        #expect(talking.chats.allSatisfy { $0.room_id == room && $0.files.isEmpty })
        #expect(talking.chats.allSatisfy { BuyOrNotTwin.isAppDate($0.createdAt) })
        // One more line from the seller's room screen: the answer the app decodes (and ignores).
        let line = "택배 거래도 가능해요."
        let sent = try await seller.perform(
            .sendChat(id: room, query: BuyOrNotTwin.MessageQuery(content: line)), as: BuyOrNotTwin.ChatContentModel.self
        )
        #expect(sent.room_id == room)
        #expect(sent.content == line)
        #expect(sent.sender.user_id == sellerId)
        #expect(sent.files.isEmpty)
        #expect(BuyOrNotTwin.isAppDate(sent.createdAt), "createdAt \(sent.createdAt)")

        // The buyer's message list polls after the access token expired: 419, refresh, then two more sends.
        try await buyer.letAccessTokenExpire()
        let listCall = "GET /v1/chats"
        let before = await buyer.sendCount(listCall)
        let buyerList = try await buyer.perform(.myChats, as: BuyOrNotTwin.ChatListModel.self)
        #expect(await buyer.refreshes == 1)
        #expect(await buyer.sendCount(listCall) == before + 3)
        #expect(buyerList.data.map(\.room_id) == [room], "one room")
        let buyerRow = try #require(buyerList.data.first)
        let sellerAsSeen = try #require(buyerRow.participants.first { $0.user_id != buyerId })
        #expect(sellerAsSeen.user_id == sellerId)
        #expect(sellerAsSeen.nick == sellerNick)
        #expect(sellerAsSeen.profileImage == sellerAvatar)
        // The cell's photo: `"\(baseURL)/v1/\(profileImage)"` with Kingfisher's `imageDownloadRequest`.
        let avatar = try await buyer.image(sellerAvatar)
        #expect(avatar.status == 200, "\(avatar.status) \(avatar.text)")
        #expect(avatar.body == TestImages.png)
        #expect(buyerRow.lastChat?.chat_id == sent.chat_id)
        #expect(buyerRow.lastChat?.content == line)
        #expect(BuyOrNotTwin.isAppDate(buyerRow.updatedAt), "updatedAt \(buyerRow.updatedAt)")
        // The buyer opens the room from the list: the whole conversation, oldest first (ExyteChat's order).
        let history = try await buyer.perform(.lookChat(id: room), as: BuyOrNotTwin.ChatRoomModel.self)
        #expect(history.data.map(\.chat_id) == [asked.chat_id] + talking.outcome.posted + [sent.chat_id])
        #expect(history.data.map(\.content) == [question, answer, reply, line])
        #expect(history.data.map(\.sender.user_id) == [buyerId, sellerId, buyerId, sellerId])
        let dates = history.data.compactMap { BuyOrNotTwin.appDate($0.createdAt) }
        #expect(dates.count == 4, "toMessage parses every date (no fallback to now)")
        #expect(dates == dates.sorted())

        // The seller's message button on the buyer's profile opens the same room.
        let buyerProfile = try await seller.perform(.othersProfile(id: buyerId), as: BuyOrNotTwin.ProfileModel.self)
        let again = try await seller.perform(
            .makeChat(BuyOrNotTwin.ChatQuery(opponent_id: buyerProfile.user_id)), as: BuyOrNotTwin.ChatModel.self)
        #expect(again.room_id == room)
        #expect(again.lastChat?.chat_id == sent.chat_id)

        // The buyer withdraws: the seller's list drops the room at its next poll; a line typed on the room screen
        // still open is refused (`sendMessage` ignores the failure: nothing shows).
        _ = try await buyer.perform(.withdraw, as: BuyOrNotTwin.JoinModel.self)
        let afterWithdraw = try await seller.perform(.myChats, as: BuyOrNotTwin.ChatListModel.self)
        #expect(!afterWithdraw.data.contains { $0.room_id == room })
        let refused = try await seller.send(.sendChat(id: room, query: BuyOrNotTwin.MessageQuery(content: "안녕하세요?")))
        #expect(refused.status == 410, "\(refused.text)")
    }
}
